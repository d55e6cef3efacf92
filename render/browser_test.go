package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/browser"
)

// screenshotDir, when set, makes TestBrowserScreenshots write PNGs there
// (make screenshots sets it).
const screenshotEnv = "TRAINDOC_SCREENSHOTS"

// startBrowser starts Chromium for a test, or skips it.
func startBrowser(t *testing.T) *browser.Browser {
	t.Helper()
	bin := browser.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	b, err := browser.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// browserReports are the reports checked in the browser: the hand-written
// cascade (with payloads), and the injected snapshot through the real
// pipeline when it can run.
func browserReports(t *testing.T) map[string]*report.Report {
	reps := map[string]*report.Report{"handwritten": loadHandwritten(t)}
	if rep, err := diagnoseSnapshot(filepath.Join("testdata", "snapshots", "injected")); err == nil {
		reps["injected"] = rep
	} else {
		t.Logf("injected snapshot not diagnosed: %v", err)
	}
	return reps
}

// TestBrowserReports opens every HTML report in Chromium: it must load with
// no console errors and no network requests, and the payloads must be
// visible text, never elements.
func TestBrowserReports(t *testing.T) {
	b := startBrowser(t)
	dir := t.TempDir()
	for name, rep := range browserReports(t) {
		for _, lang := range Languages {
			t.Run(name+"/"+lang, func(t *testing.T) {
				var out bytes.Buffer
				if err := Write(&out, "html", rep, Options{Lang: lang, Version: "test"}); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, name+"."+lang+".html")
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				checkPage(t, b, path, lang, strings.Contains(out.String(), "alert(1)"))
			})
		}
	}
	// Per-job files as `traindoc report` writes them.
	files, err := WriteJobFiles(filepath.Join(dir, "jobs"), loadHandwritten(t), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".html") {
			lang := "en"
			if strings.HasSuffix(f, ".zh.html") {
				lang = "zh"
			}
			t.Run(filepath.Base(f), func(t *testing.T) { checkPage(t, b, f, lang, false) })
		}
	}
}

func checkPage(t *testing.T, b *browser.Browser, path, lang string, payloads bool) {
	t.Helper()
	for _, dark := range []bool{false, true} {
		p, err := b.Open(path, browser.Options{Dark: dark})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if probs := p.Problems(); len(probs) > 0 {
			t.Errorf("console errors (dark=%v):\n%s", dark, strings.Join(probs, "\n"))
		}
		if reqs := p.Requests(); len(reqs) > 0 {
			t.Errorf("network requests (dark=%v): %v", dark, reqs)
		}
	}
	// On a phone, with every fold open, nothing scrolls sideways: tables
	// become cards and log lines wrap.
	phone, err := b.Open(path, browser.Options{Width: 390, Height: 844, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer phone.Close()
	if w, err := browser.Eval[int](phone, `(() => { document.querySelectorAll("details").forEach(d => d.open = true); return document.documentElement.scrollWidth; })()`); err != nil || w > 390 {
		t.Errorf("the report is %dpx wide on a 390px phone (%v)", w, err)
	}
	p, err := b.Open(path, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	wantLang := "en"
	if lang == "zh" {
		wantLang = "zh-CN"
	}
	if got, err := browser.Eval[string](p, "document.documentElement.lang"); err != nil || got != wantLang {
		t.Errorf("html lang = %q (%v), want %q", got, err, wantLang)
	}
	counts, err := browser.Eval[map[string]int](p, `({
		scripts: document.scripts.length,
		jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
		iframes: document.querySelectorAll('iframe,object,embed,img').length,
		handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
		links: document.querySelectorAll('a[href^="#"]').length,
		deadLinks: [...document.querySelectorAll('a[href^="#"]')].filter(a => !document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)))).length,
	})`)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scripts", "jsLinks", "iframes", "handlers", "deadLinks"} {
		if counts[k] != 0 {
			t.Errorf("page has %d %s", counts[k], k)
		}
	}
	if !payloads {
		return
	}
	if counts["links"] == 0 {
		t.Errorf("no in-page links (consequence to cause, index to job)")
	}
	text, err := p.Text()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<script>alert(1)</script>", "[x](javascript:alert(1))"} {
		if !strings.Contains(text, want) {
			t.Errorf("visible text lacks %q", want)
		}
	}
	// Every element whose text holds a payload shows it verbatim: it is
	// text in a <code>, <td> or <p>, not parsed markup.
	n, err := browser.Eval[int](p, `[...document.querySelectorAll('pre code, td, p')].filter(e => e.textContent.includes('<script>alert(1)</script>')).length`)
	if err != nil || n == 0 {
		t.Errorf("no element shows the script payload as text (n=%d, err=%v)", n, err)
	}
}

// TestBrowserScreenshots writes full-page screenshots of the English and
// Chinese report, light and phone-sized dark, for people to look at.
func TestBrowserScreenshots(t *testing.T) {
	dir := os.Getenv(screenshotEnv)
	if dir == "" {
		t.Skipf("set %s=DIR to write screenshots", screenshotEnv)
	}
	b := startBrowser(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := loadHandwritten(t)
	tmp := t.TempDir()
	for _, lang := range Languages {
		var out bytes.Buffer
		if err := Write(&out, "html", rep, Options{Lang: lang, Version: "test"}); err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(tmp, "report."+lang+".html")
		if err := os.WriteFile(page, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for suffix, opts := range map[string]browser.Options{
			".1400":     {Width: 1400, Height: 900},
			".390":      {Width: 390, Height: 844, Scale: 2},
			".390-dark": {Width: 390, Height: 844, Scale: 2, Dark: true},
		} {
			p, err := b.Open(page, opts)
			if err != nil {
				t.Fatal(err)
			}
			png, err := p.Screenshot()
			p.Close()
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, "report."+lang+suffix+".png")
			if err := os.WriteFile(name, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", name)
		}
	}
}
