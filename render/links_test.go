package render

import (
	"regexp"
	"strings"
	"testing"
)

// TestOutsideLinksNoOpener: a link that leaves the report (a URL in a
// rule's remediation, a user rule's text or the model's answer, linked by
// GFM) opens without handing the page to the target or telling it where
// the reader came from; in-page links stay as they are.
func TestOutsideLinksNoOpener(t *testing.T) {
	md := "See https://docs.example.invalid/nccl and [the guide](http://guide.example.invalid/x), " +
		"<https://auto.example.invalid/> or www.example.invalid. Back to [the top](#top).\n"
	page, err := MarkdownToHTML([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`<a [^>]*>`).FindAllString(string(page), -1)
	outside := 0
	for _, a := range links {
		local := strings.Contains(a, `href="#`)
		hasRel := strings.Contains(a, `rel="noopener noreferrer"`)
		if !local {
			outside++
		}
		if local == hasRel {
			t.Errorf("%s: rel=noopener noreferrer %v, want %v", a, hasRel, !local)
		}
	}
	if outside != 4 {
		t.Errorf("%d outside links in %s, want 4", outside, page)
	}
}
