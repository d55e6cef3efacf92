package site

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

// TestPagesCSP: every page's policy forbids inline script and style
// wholesale and allows, by hash, each inline style the page has, so the
// site styles itself under its own policy and nothing injected would.
func TestPagesCSP(t *testing.T) {
	files, err := Render(reportsInput(t))
	if err != nil {
		t.Fatal(err)
	}
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	attrs := regexp.MustCompile(`\sstyle="([^"]*)"`)
	pages, styled := 0, 0
	for _, p := range files.Paths() {
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		pages++
		page := files[p]
		m := meta.FindSubmatch(page)
		if m == nil {
			t.Errorf("%s: no Content-Security-Policy", p)
			continue
		}
		csp := string(m[1])
		if strings.Contains(csp, "'unsafe-inline'") || strings.Contains(csp, "'unsafe-eval'") || !strings.Contains(csp, "script-src 'self';") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		if strings.Contains(string(page), "<style") {
			t.Errorf("%s: a <style> element, which the policy forbids", p)
		}
		for _, a := range attrs.FindAllSubmatch(page, -1) {
			styled++
			sum := sha256.Sum256(a[1])
			if !strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
				t.Errorf("%s: CSP does not allow style=%q", p, a[1])
			}
		}
	}
	if pages == 0 || styled == 0 {
		t.Errorf("%d pages, %d style attributes: the test saw nothing", pages, styled)
	}
}
