package render

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// goldenExt maps a format to the golden file extension.
var goldenExt = map[string]string{
	"markdown": "md",
	"html":     "html",
	"sarif":    "sarif.json",
	"junit":    "junit.xml",
}

// checkGolden compares got with testdata/golden/name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test ./render/... -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file %s (run go test ./render/... -update and review the diff)\n%s",
			name, path, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing line, enough to see what moved.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// renderAll renders rep in every format and language and checks goldens
// named <case>.<lang>.<ext>.
func renderAll(t *testing.T, name string, rep *report.Report) {
	t.Helper()
	for _, lang := range Languages {
		for _, format := range Formats {
			t.Run(lang+"/"+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := Write(&b, format, rep, Options{Lang: lang, FailOn: "warning", Version: "test"}); err != nil {
					t.Fatalf("render: %v", err)
				}
				checkGolden(t, name+"."+lang+"."+goldenExt[format], b.Bytes())
			})
		}
	}
}

func loadHandwritten(t testing.TB) *report.Report {
	t.Helper()
	rep, err := report.ReadFile(filepath.Join("testdata", "reports", "handwritten.json"))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestGoldenHandwritten(t *testing.T) {
	renderAll(t, "handwritten", loadHandwritten(t))
}

// diagnoseSnapshot runs the real pipeline over a snapshot directory.
func diagnoseSnapshot(dir string) (*report.Report, error) {
	rep, err := diagnose.Run(context.Background(), dir, diagnose.Options{Version: "test"})
	if err != nil {
		return nil, err
	}
	// The report names its source; keep it relative so goldens do not
	// depend on where the repository is checked out.
	rep.Source = filepath.ToSlash(dir)
	rep.Tool.Version = "test"
	return rep, nil
}

// goldenFixtures are repository fixtures with different job kinds and a
// multi-finding cascade, plus the payload snapshot of this package.
var goldenFixtures = []struct{ name, dir string }{
	{"cascade-cuda-oom-nccl-timeout", "../fixtures/cascade-cuda-oom-nccl-timeout"},
	{"pod-image-pull", "../fixtures/pod-image-pull"},
	{"pod-config-error", "../fixtures/pod-config-error"},
	{"sched-gang-pending", "../fixtures/sched-gang-pending"},
	{"injected", "testdata/snapshots/injected"},
}

func TestGoldenFixtures(t *testing.T) {
	for _, fx := range goldenFixtures {
		t.Run(fx.name, func(t *testing.T) {
			rep, err := diagnoseSnapshot(fx.dir)
			if err != nil {
				t.Fatalf("diagnose %s: %v", fx.dir, err)
			}
			rep.Source = strings.TrimPrefix(filepath.ToSlash(fx.dir), "../")
			renderAll(t, fx.name, rep)
		})
	}
}

// The payload snapshot must put its payloads through every format as text.
func TestInjectedPayloadsAreText(t *testing.T) {
	rep, err := diagnoseSnapshot(filepath.Join("testdata", "snapshots", "injected"))
	if err != nil {
		t.Fatal(err)
	}
	assertPayloadsLiteral(t, rep)
}
