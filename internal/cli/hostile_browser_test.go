package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/browser"
)

// pwn payloads set a global instead of calling alert, which would block a
// headless page; the test reads the global afterwards.
var pwnPayloads = []string{
	`<img src=x onerror="window.__pwned='img'">`,
	`<script>window.__pwned='script'</script>`,
	`"><svg onload="window.__pwned='svg'">`,
	`javascript:window.__pwned='href'`,
	`</textarea></title><script>window.__pwned='break'</script>`,
}

// TestHostileSiteInBrowser builds a site from jobs whose names, events and
// log lines are markup, opens it in headless Chromium from file:// and
// searches for the markup: the site's own script works under its
// Content-Security-Policy, shows the hostile text as text, runs none of
// it, requests nothing outside the site, and no CSP violation (an inline
// script the policy had to block) is reported.
func TestHostileSiteInBrowser(t *testing.T) {
	bin := browser.ForTest(t)
	snap := t.TempDir()
	job := markupJob()
	job.Events = append(job.Events, pwnPayloads...)
	job.Log = strings.Join(pwnPayloads, "\n") + "\n" + job.Log + strings.Join(pwnPayloads, "\n") + "\n"
	jobs := []hostileJob{job}
	for i, p := range pwnPayloads {
		jobs = append(jobs, hostileJob{Namespace: "ml", Name: fmt.Sprintf("pwn%d-%s", i, p), Events: []string{p}})
	}
	writeHostileSnapshot(t, snap, jobs...)
	site := filepath.Join(t.TempDir(), "site")
	if r := runBounded(t, false, "site", "--snapshot", snap, "--out", site); r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	// The detector works: an inline script under the site's policy is
	// blocked, and the violation is reported as a problem.
	canary := filepath.Join(site, "en", "canary.html")
	index, err := os.ReadFile(filepath.Join(site, "en", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(index), "</head>")
	if err := os.WriteFile(canary, []byte(head+"</head><body><script>window.__pwned='canary'</script></body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := b.Open(canary, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitTrue(t, p, `document.readyState === "complete"`)
	if v := evalOr(t, p, `String(window.__pwned)`); v != "undefined" {
		t.Fatalf("the policy let an inline script run: %s", v)
	}
	if pr := strings.Join(p.Problems(), "\n"); !strings.Contains(pr, "Content Security Policy") {
		t.Errorf("a blocked inline script was not reported: %q", pr)
	}
	p.Close()
	if err := os.Remove(canary); err != nil {
		t.Fatal(err)
	}

	p, err = b.Open(filepath.Join(site, "en", "index.html"), browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitTrue(t, p, `document.getElementById("count") && document.getElementById("count").textContent !== ""`)
	total := evalInt(t, p, `document.querySelectorAll("#jobs tbody tr").length`)
	if total != len(jobs) {
		t.Errorf("index lists %d jobs, want %d", total, len(jobs))
	}
	for _, q := range append([]string{"script", "onerror", "pwned", "xss", "javascript", "img"}, pwnPayloads...) {
		evalOr(t, p, fmt.Sprintf(`(() => { const q = document.getElementById("q"); q.value = %s; q.dispatchEvent(new Event("input")); return "ok"; })()`, strconv.Quote(q)))
		shown := evalInt(t, p, `Array.from(document.querySelectorAll("#jobs tbody tr")).filter(r => !r.hidden).length`)
		if q == "pwned" && shown == 0 {
			t.Errorf("search %q finds no job, though every hostile job holds it", q)
		}
		// Results are text and relative links only.
		if n := evalInt(t, p, `document.querySelectorAll("main script, main img, main svg image, main iframe, [onerror], [onload]").length`); n != 0 {
			t.Errorf("search %q: %d active elements in the page", q, n)
		}
		if bad := evalOr(t, p, `Array.from(document.querySelectorAll("#more-list a, #jobs a")).map(a => a.getAttribute("href")).filter(h => /^[a-z]+:|^\/\//i.test(h)).join(" ")`); bad != "" {
			t.Errorf("search %q: links out of the site: %s", q, bad)
		}
	}
	// The hostile names are shown as the same characters.
	evalOr(t, p, `(() => { document.getElementById("filters").reset(); const q = document.getElementById("q"); q.value = ""; q.dispatchEvent(new Event("input")); return "ok"; })()`)
	text := evalOr(t, p, `document.getElementById("jobs").innerText`)
	if !strings.Contains(text, `onerror="window.__pwned='img'"`) {
		t.Errorf("a hostile job name is not shown as text:\n%s", text)
	}
	// A job page: the evidence shows, nothing runs.
	evalOr(t, p, `(() => { document.querySelector('#jobs tbody tr th a[href*="markup"]').click(); return "ok"; })()`)
	waitTrue(t, p, `location.pathname.includes("/jobs/") && document.readyState === "complete"`)
	if !strings.Contains(evalOr(t, p, `document.body.innerText`), `window.__pwned='script'`) {
		t.Error("the job page does not show the hostile evidence")
	}
	time.Sleep(200 * time.Millisecond)
	if v := evalOr(t, p, `String(window.__pwned)`); v != "undefined" {
		t.Errorf("hostile markup ran: window.__pwned = %s", v)
	}
	for _, pr := range p.Problems() {
		t.Errorf("browser: %s", pr)
	}
	abs, err := filepath.Abs(site)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Requests() {
		if !strings.HasPrefix(r, "file://"+filepath.ToSlash(abs)+"/") {
			t.Errorf("request outside the site: %s", r)
		}
	}
}

func evalOr(t *testing.T, p *browser.Page, expr string) string {
	t.Helper()
	v, err := browser.Eval[string](p, expr)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func evalInt(t *testing.T, p *browser.Page, expr string) int {
	t.Helper()
	v, err := browser.Eval[int](p, expr)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitTrue polls a boolean expression; errors while a page loads count as
// "not yet".
func waitTrue(t *testing.T, p *browser.Page, expr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := browser.Eval[bool](p, expr); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", expr)
}
