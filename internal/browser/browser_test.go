package browser

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The helper must notice what it is meant to catch: a console error, an
// exception and a network request.
func TestDetectsProblemsAndRequests(t *testing.T) {
	bin := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	dir := t.TempDir()
	noisy := filepath.Join(dir, "noisy.html")
	writeFile(t, noisy, `<!DOCTYPE html><html><head><title>x</title></head><body>
<p>hello</p>
<img src="http://127.0.0.1:9/nothing.png">
<script>console.error("boom"); throw new Error("kaput");</script>
</body></html>`)
	quiet := filepath.Join(dir, "quiet.html")
	writeFile(t, quiet, `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:"><link rel="icon" href="data:,"></head><body><p>quiet &lt;b&gt;</p></body></html>`)

	p, err := b.Open(noisy, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Give the failed image load a moment to be logged.
	time.Sleep(500 * time.Millisecond)
	probs := strings.Join(p.Problems(), "\n")
	for _, want := range []string{"boom", "kaput"} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems %q lack %q", probs, want)
		}
	}
	if reqs := p.Requests(); len(reqs) == 0 || !strings.Contains(strings.Join(reqs, " "), "nothing.png") {
		t.Errorf("requests = %v, want the image", reqs)
	}
	p.Close()

	q, err := b.Open(quiet, Options{Width: 390, Height: 800, Scale: 2, Dark: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if probs := q.Problems(); len(probs) > 0 {
		t.Errorf("quiet page problems: %v", probs)
	}
	if reqs := q.Requests(); len(reqs) > 0 {
		t.Errorf("quiet page requests: %v", reqs)
	}
	text, err := q.Text()
	if err != nil {
		t.Fatal(err)
	}
	if text != "quiet <b>" {
		t.Errorf("text = %q", text)
	}
	dark, err := Eval[bool](q, `matchMedia("(prefers-color-scheme: dark)").matches`)
	if err != nil || !dark {
		t.Errorf("dark emulation: %v %v", dark, err)
	}
	png, err := q.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot is not a PNG")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
