package site

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

// TestScriptHasNoHTMLSinks: the site script builds every element with
// createElement and textContent. None of the ways to turn a string into
// markup or code appears in it, so job names and evidence in the search
// index cannot become either, whatever they hold.
func TestScriptHasNoHTMLSinks(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("assets", "site.js"))
	if err != nil {
		t.Fatal(err)
	}
	// Comments may name the sinks they avoid.
	code := regexp.MustCompile(`(?m)//.*$`).ReplaceAllString(string(src), "")
	sinks := regexp.MustCompile(`\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write|\beval\s*\(|new\s+Function\b|\bsetTimeout\s*\(\s*['"]|\bsetInterval\s*\(\s*['"]|\.srcdoc\b|createContextualFragment|DOMParser|\.setAttribute\(\s*['"]on|\.on[a-z]+\s*=\s*[^=]`)
	for _, m := range sinks.FindAllString(code, -1) {
		t.Errorf("site.js uses %q", m)
	}
	// The only URL the script sets comes from the search index, which
	// the site writes itself (see TestSearchIndexURLsStayInside).
	for _, m := range regexp.MustCompile(`\.(?:href|src|action)\s*=\s*([^;]+);`).FindAllStringSubmatch(code, -1) {
		if strings.TrimSpace(m[1]) != "h.entry.url" {
			t.Errorf("site.js sets a URL from %q", m[1])
		}
	}
	if !strings.Contains(code, "textContent") || !strings.Contains(code, "createTextNode") {
		t.Error("site.js no longer writes text as text; update this test with the way it does")
	}
}

// TestSearchIndexURLsStayInside: whatever a job is called, the links the
// search index hands to the script are relative paths inside the site.
func TestSearchIndexURLsStayInside(t *testing.T) {
	in := reportsInput(t)
	rep := *in.Runs[len(in.Runs)-1]
	for _, name := range []string{"javascript:alert(1)", "//evil.invalid/x", "/etc/passwd", "../../../x", "data:text/html,<script>1</script>", "a\x00b", "https://evil.invalid"} {
		rep.Jobs = append(rep.Jobs, report.Job{Kind: "PyTorchJob", Namespace: name, Name: name, Phase: "Failed"})
	}
	in.Runs = append(in.Runs[:len(in.Runs)-1:len(in.Runs)-1], &rep)
	files, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range languages {
		idx := string(files["assets/search-index."+lang+".js"])
		_, body, ok := strings.Cut(idx, "window.TRAINDOC_SEARCH = ")
		if !ok {
			t.Fatalf("%s: search index has no data", lang)
		}
		var entries []searchEntry
		if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(body), ";")), &entries); err != nil {
			t.Fatalf("%s: search index is not one JSON value: %v", lang, err)
		}
		jobs := 0
		for _, e := range entries {
			u, err := url.Parse(e.URL)
			if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(e.URL, "/") || strings.Contains(e.URL, "..") || !safeJoin(lang+"/"+e.URL) {
				t.Errorf("%s: entry %q links to %q", lang, e.Title, e.URL)
			}
			if _, ok := files[lang+"/"+e.URL]; !ok {
				t.Errorf("%s: entry %q links to %q, which is not a page", lang, e.Title, e.URL)
			}
			if e.Type == "job" {
				jobs++
			}
		}
		if jobs != len(rep.Jobs) {
			t.Errorf("%s: %d job entries, want %d", lang, jobs, len(rep.Jobs))
		}
	}
}
