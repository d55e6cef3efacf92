package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/traindoc/traindoc/engine/report"
)

const (
	scriptPayload = "<script>alert(1)</script>"
	linkPayload   = "[x](javascript:alert(1))"
)

func TestHandwrittenPayloadsAreText(t *testing.T) {
	assertPayloadsLiteral(t, loadHandwritten(t))
}

// assertPayloadsLiteral renders rep in every format and language and checks
// that the payloads are present as text and nowhere as markup.
func assertPayloadsLiteral(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, lang := range Languages {
		render := func(format string) []byte {
			var b bytes.Buffer
			if err := Write(&b, format, rep, Options{Lang: lang, FailOn: "info"}); err != nil {
				t.Fatalf("%s/%s: %v", lang, format, err)
			}
			return b.Bytes()
		}

		// Markdown: the payloads appear, and parsing yields no raw HTML and
		// no link other than our own anchors.
		md := render("markdown")
		doc := markdown.Parser().Parse(text.NewReader(md), parser.WithContext(parser.NewContext(parser.WithIDs(newHeadingIDs()))))
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.HTMLBlock:
				for i := 0; i < n.Lines().Len(); i++ {
					seg := n.Lines().At(i)
					l := strings.TrimSpace(string(seg.Value(md)))
					if l != "" && !detailsLine.MatchString(l) && !summaryLine.MatchString(l) {
						t.Errorf("%s markdown: raw HTML %q", lang, l)
					}
				}
			case *ast.RawHTML:
				t.Errorf("%s markdown: raw HTML node %s", lang, n.Kind())
			case *ast.Link:
				if !bytes.HasPrefix(n.Destination, []byte("#")) {
					t.Errorf("%s markdown: link to %q", lang, n.Destination)
				}
			case *ast.AutoLink:
				t.Errorf("%s markdown: autolink %q", lang, n.URL(md))
			case *ast.Image:
				t.Errorf("%s markdown: image %q", lang, n.Destination)
			}
			return ast.WalkContinue, nil
		})
		if !bytes.Contains(md, []byte(scriptPayload)) && !bytes.Contains(md, []byte(escapeInline(scriptPayload))) {
			t.Errorf("%s markdown lacks the script payload", lang)
		}

		// HTML: only escaped forms, no live elements.
		page := string(render("html"))
		for _, bad := range []string{"<script", `href="javascript`, "<!-- c", "<!-- hidden", "onerror=", "<img", "<iframe"} {
			if strings.Contains(strings.ToLower(page), bad) {
				t.Errorf("%s html contains %q", lang, bad)
			}
		}
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s html lacks the escaped script payload", lang)
		}

		// SARIF: valid JSON that carries the payload as a string value.
		var sarif any
		if err := json.Unmarshal(render("sarif"), &sarif); err != nil {
			t.Errorf("%s sarif: %v", lang, err)
		}

		// JUnit: well-formed XML whose text holds the payload.
		junit := render("junit")
		dec := xml.NewDecoder(bytes.NewReader(junit))
		var texts strings.Builder
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s junit: %v", lang, err)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if tok.Name.Local == "script" {
					t.Errorf("%s junit has a script element", lang)
				}
			case xml.CharData:
				texts.Write(tok)
			}
		}
		if findingsMention(rep, scriptPayload) && !strings.Contains(texts.String(), scriptPayload) {
			t.Errorf("%s junit text lacks the payload", lang)
		}
	}
}

// findingsMention reports whether any finding's message or evidence holds s
// (the machine formats carry findings only, not the timeline).
func findingsMention(rep *report.Report, s string) bool {
	for _, j := range rep.Jobs {
		for _, f := range j.Findings {
			if strings.Contains(f.Message.En, s) {
				return true
			}
			for _, e := range f.Evidence {
				if strings.Contains(e.Text, s) {
					return true
				}
			}
		}
	}
	return false
}
