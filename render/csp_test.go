package render

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

// cspSource is the CSP source expression that allows exactly text.
func cspSource(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

var (
	cspMeta    = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	styleElem  = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
	styleAttrs = regexp.MustCompile(`\sstyle="([^"]*)"`)
)

// CheckPageCSP fails when a page's policy allows inline style or script
// wholesale, or does not allow by hash each inline style the page has:
// the page would then either run injected markup's styles or lose its own.
func checkPageCSP(t *testing.T, name string, page []byte) {
	t.Helper()
	m := cspMeta.FindSubmatch(page)
	if m == nil {
		t.Errorf("%s: no Content-Security-Policy", name)
		return
	}
	csp := string(m[1])
	if strings.Contains(csp, "'unsafe-inline'") || strings.Contains(csp, "'unsafe-eval'") {
		t.Errorf("%s: CSP %q allows inline code wholesale", name, csp)
	}
	for _, s := range styleElem.FindAllSubmatch(page, -1) {
		if !strings.Contains(csp, cspSource(string(s[1]))) {
			t.Errorf("%s: CSP %q does not allow the page's own <style>", name, csp)
		}
	}
	attrs := styleAttrs.FindAllSubmatch(page, -1)
	for _, a := range attrs {
		if !strings.Contains(csp, cspSource(string(a[1]))) || !strings.Contains(csp, "'unsafe-hashes'") {
			t.Errorf("%s: CSP %q does not allow style=%q", name, csp, a[1])
		}
	}
}

// TestPageCSP: the report page allows its own stylesheet and the table
// alignments, by hash, and nothing else inline.
func TestPageCSP(t *testing.T) {
	body, err := MarkdownToHTML([]byte("| a | b | c |\n| :--- | :---: | ---: |\n| 1 | 2 | 3 |\n"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := HTMLPage("t", "en", "test", body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(styleAttrs.FindAll(page, -1)); n != 6 {
		t.Fatalf("%d style attributes in the aligned table, want 6: %s", n, body)
	}
	checkPageCSP(t, "report page", page)
}
