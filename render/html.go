package render

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

//go:embed assets/report.css
var reportCSS string

// Stylesheet returns the embedded report stylesheet, for pages that wrap
// MarkdownToHTML output themselves (the static site).
func Stylesheet() string { return reportCSS }

// markdown is the one goldmark configuration. Raw HTML stays disabled (no
// html.WithUnsafe): untrusted text that slipped past escaping would be
// dropped, not executed, and javascript: links are never emitted.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.CJK),
	goldmark.WithParserOptions(
		parser.WithAttribute(),
		parser.WithASTTransformers(util.Prioritized(reportTransformer{}, 500)),
	),
)

// MarkdownToHTML converts report Markdown to an HTML fragment. Headings get
// GitHub-style IDs that keep CJK characters; headings ending in a "¶" link
// to "#id" take that id (finding permalinks).
func MarkdownToHTML(md []byte) ([]byte, error) {
	var out bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	if err := markdown.Convert(md, &out, parser.WithContext(ctx)); err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	return out.Bytes(), nil
}

// headingIDs generates heading IDs the way GitHub does: lower-case, letters
// (any script) and digits kept, spaces to dashes, other punctuation and
// symbols dropped, duplicates numbered. goldmark's default keeps only ASCII,
// which turns every Chinese heading into "heading-N".
type headingIDs struct {
	used map[string]bool
}

func newHeadingIDs() *headingIDs { return &headingIDs{used: map[string]bool{}} }

var _ parser.IDs = (*headingIDs)(nil)

func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	base := slugify(string(value))
	if base == "" {
		base = "section" // see headingSlug
	}
	id := base
	for n := 1; h.used[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	h.used[id] = true
	return []byte(id)
}

func (h *headingIDs) Put(value []byte) { h.used[string(value)] = true }

// slugify is the GitHub heading-anchor algorithm.
func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.Is(unicode.Mn, r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// reportTransformer assigns heading IDs from the rendered heading text and
// turns the report's plain-Markdown conventions into classes for the
// stylesheet (see markdown.go).
type reportTransformer struct{}

func (reportTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	ids := pc.IDs()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			headingID(n, src, ids)
			if sev := stripMarker(n, src); sev != "" {
				n.SetAttributeString("class", []byte("finding sev-"+sev))
			}
		case *ast.Emphasis:
			if n.Level == 2 {
				badge(n, src)
			}
		case *ast.Blockquote:
			n.SetAttributeString("class", []byte("note"))
		}
		return ast.WalkContinue, nil
	})
}

func headingID(h *ast.Heading, src []byte, ids parser.IDs) {
	if _, ok := h.AttributeString("id"); ok {
		return // explicit {#id}
	}
	if l, ok := h.LastChild().(*ast.Link); ok && isPermalink(l, src) {
		id := bytes.TrimPrefix(l.Destination, []byte("#"))
		ids.Put(id)
		h.SetAttributeString("id", id)
		l.SetAttributeString("class", []byte("permalink"))
		l.SetAttributeString("aria-hidden", []byte("true"))
		return
	}
	h.SetAttributeString("id", ids.Generate(plainText(h, src), ast.KindHeading))
}

func isPermalink(l *ast.Link, src []byte) bool {
	return bytes.HasPrefix(l.Destination, []byte("#")) && string(plainText(l, src)) == permalinkText
}

// plainText is the visible text of n, without permalink links.
func plainText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.Link:
				if !isPermalink(c, src) {
					walk(c)
				}
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return bytes.TrimSpace(b.Bytes())
}

// badge gives bold text that starts with a report marker a class.
func badge(e *ast.Emphasis, src []byte) {
	t := string(plainText(e, src))
	class := ""
	for sev, m := range severityMarker {
		if strings.HasPrefix(t, m) {
			class = "badge sev-" + sev
		}
	}
	switch {
	case strings.HasPrefix(t, markerHealthy):
		class = "badge verdict-ok"
	case strings.HasPrefix(t, markerUnhealthy):
		class = "badge verdict-bad"
	case strings.HasPrefix(t, markerWarning):
		class = "badge warn"
	}
	if class == "" {
		return
	}
	if class != "badge warn" {
		// The colour says it in HTML; emoji fonts are not everywhere.
		stripMarker(e, src)
	}
	e.SetAttributeString("class", []byte(class))
	// Paragraphs and table rows that start with a verdict or a warning get
	// a class too, so the verdict line and warning timeline rows stand out.
	if strings.HasPrefix(class, "badge verdict") && e.PreviousSibling() == nil {
		if p, ok := e.Parent().(*ast.Paragraph); ok {
			p.SetAttributeString("class", []byte("verdict "+strings.TrimPrefix(class, "badge verdict-")))
		}
	}
	if class == "badge warn" {
		if cell := e.Parent(); cell != nil {
			if row, ok := cell.Parent().(*extast.TableRow); ok {
				row.SetAttributeString("class", []byte("warn"))
			}
		}
	}
}

// stripMarker removes a leading report marker (and the space after it)
// from n's first text and returns the severity it stood for, or "" when the
// marker is a verdict or there is none.
func stripMarker(n ast.Node, src []byte) string {
	t, ok := n.FirstChild().(*ast.Text)
	if !ok {
		return ""
	}
	v := t.Segment.Value(src)
	markers := map[string]string{markerHealthy: "", markerUnhealthy: ""}
	for sev, m := range severityMarker {
		markers[m] = sev
	}
	for m, sev := range markers {
		if bytes.HasPrefix(v, []byte(m+" ")) {
			t.Segment = t.Segment.WithStart(t.Segment.Start + len(m) + 1)
			return sev
		}
	}
	return ""
}

// htmlLang is the value of <html lang>.
func htmlLang(lang string) string {
	if NormalizeLang(lang) == "zh" {
		return "zh-CN"
	}
	return "en"
}

// The page allows nothing to load: no scripts, no fonts, no images from
// anywhere. A report must work offline and must not call home, and the
// policy is a second line of defence behind escaping.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="traindoc {{.Version}}">
<title>{{.Title}}</title>
<link rel="icon" href="data:,">
<style>{{.CSS}}</style>
</head>
<body>
<main class="report">
{{.Body}}</main>
</body>
</html>
`))

// HTMLPage wraps an HTML fragment produced by MarkdownToHTML in a
// self-contained page with the embedded stylesheet.
func HTMLPage(title, lang, version string, body []byte) ([]byte, error) {
	var out bytes.Buffer
	err := pageTemplate.Execute(&out, struct {
		Lang, Title, Version string
		CSS                  template.CSS
		Body                 template.HTML
	}{
		Lang:    htmlLang(lang),
		Title:   title,
		Version: version,
		CSS:     template.CSS(reportCSS),
		// Safe: goldmark output with raw HTML disabled.
		Body: template.HTML(body),
	})
	if err != nil {
		return nil, fmt.Errorf("render page: %w", err)
	}
	return out.Bytes(), nil
}

// markdownPage renders Markdown to a complete HTML page.
func markdownPage(md []byte, title, lang, version string) ([]byte, error) {
	body, err := MarkdownToHTML(md)
	if err != nil {
		return nil, err
	}
	return HTMLPage(title, lang, version, body)
}
