package render

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/traindoc/traindoc/internal/i18n"
)

//go:embed assets/report.css
var reportCSS string

// Stylesheet returns the embedded report stylesheet, for pages that wrap
// MarkdownToHTML output themselves (the static site).
func Stylesheet() string { return reportCSS }

// markdown is the one goldmark configuration. Raw HTML stays disabled (no
// html.WithUnsafe): untrusted text that slipped past escaping would be
// dropped, not executed, and javascript: links are never emitted. The only
// HTML let through is the exact <details>/<summary> lines the report
// writes (see reportHTMLRenderer).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.CJK),
	goldmark.WithParserOptions(
		parser.WithAttribute(),
		parser.WithASTTransformers(util.Prioritized(reportTransformer{}, 500)),
	),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(reportHTMLRenderer{}, 100))),
)

// MarkdownToHTML converts report Markdown to an HTML fragment. Headings get
// the ids GitHub gives them (see anchors.go), so links written for GitHub
// work here too.
func MarkdownToHTML(md []byte) ([]byte, error) {
	var out bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	if err := markdown.Convert(md, &out, parser.WithContext(ctx)); err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	return out.Bytes(), nil
}

// headingIDs generates heading ids the way GitHub does (githubSlug, with
// repeated ids numbered). goldmark's default keeps only ASCII, which
// turns every Chinese heading into "heading-N".
type headingIDs struct{ used slugs }

func newHeadingIDs() *headingIDs { return &headingIDs{used: slugs{}} }

var _ parser.IDs = (*headingIDs)(nil)

func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	return []byte(h.used.next(string(value)))
}

func (h *headingIDs) Put(value []byte) { h.used[string(value)] = 0 }

// reportTransformer assigns heading ids and turns the report's
// plain-Markdown conventions into markup for the stylesheet: badges,
// verdict paragraphs, table cell labels for narrow screens, and quoted text
// marked translate="no".
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
		case *ast.Emphasis:
			if n.Level == 2 {
				badge(n, src)
			} else {
				routineRow(n)
			}
		case *ast.Blockquote:
			n.SetAttributeString("class", []byte("note"))
		case *ast.CodeSpan:
			n.SetAttributeString("translate", []byte("no"))
		case *extast.Table:
			labelCells(n, src)
		case *ast.Link:
			outsideLink(n, n.Destination)
		case *ast.AutoLink:
			outsideLink(n, n.URL(src))
		}
		return ast.WalkContinue, nil
	})
}

// outsideLink marks a link that leaves the page: the target gets no
// handle on the report's window and no Referer naming it.
func outsideLink(n ast.Node, dest []byte) {
	if len(dest) == 0 || dest[0] == '#' {
		return
	}
	n.SetAttributeString("rel", []byte("noopener noreferrer"))
}

// headingID gives a heading the id GitHub would, and a "¶" link to it so
// a reader can copy the link.
func headingID(h *ast.Heading, src []byte, ids parser.IDs) {
	if _, ok := h.AttributeString("id"); ok {
		return // explicit {#id}
	}
	id := ids.Generate(plainText(h, src), ast.KindHeading)
	h.SetAttributeString("id", id)
	if h.Level >= 2 {
		l := ast.NewLink()
		l.Destination = append([]byte("#"), id...)
		l.AppendChild(l, ast.NewString([]byte("¶")))
		l.SetAttributeString("class", []byte("permalink"))
		l.SetAttributeString("aria-hidden", []byte("true"))
		h.AppendChild(h, l)
	}
}

// plainText is the visible text of n.
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
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return bytes.TrimSpace(b.Bytes())
}

// labelCells copies each column's header text to its cells as data-label,
// which the stylesheet shows when a narrow screen stacks the table.
func labelCells(t *extast.Table, src []byte) {
	head, ok := t.FirstChild().(*extast.TableHeader)
	if !ok {
		return
	}
	var labels [][]byte
	for c := head.FirstChild(); c != nil; c = c.NextSibling() {
		labels = append(labels, plainText(c, src))
	}
	for row := head.NextSibling(); row != nil; row = row.NextSibling() {
		i := 0
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			if i < len(labels) && len(labels[i]) > 0 {
				c.SetAttributeString("data-label", labels[i])
			}
			i++
		}
	}
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
	verdict := ""
	for state, m := range stateMarker {
		if strings.HasPrefix(t, m) {
			verdict = state
			class = "badge state-" + state
		}
	}
	switch {
	case strings.HasPrefix(t, markerWarning):
		class = "badge warn"
	case strings.HasPrefix(t, markerAdvisory):
		class = "badge advisory"
	case strings.HasPrefix(t, markerKnown):
		class = "badge known"
	}
	if class == "" {
		return
	}
	if class != "badge warn" {
		// The colour says it in HTML; emoji fonts are not everywhere.
		stripMarker(e, src)
	}
	e.SetAttributeString("class", []byte(class))
	// The paragraph that starts with the verdict is the verdict block;
	// table rows that start with a warning stand out.
	if verdict != "" && e.PreviousSibling() == nil {
		if p, ok := e.Parent().(*ast.Paragraph); ok && e.NextSibling() == nil {
			p.SetAttributeString("class", []byte("verdict state-"+verdict))
			if l, ok := p.NextSibling().(*ast.List); ok {
				l.SetAttributeString("class", []byte("verdict-facts"))
			}
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

// routineRow marks a timeline row whose kind cell is emphasised alone
// (the collapsed routine entries), for the stylesheet to grey it.
func routineRow(e *ast.Emphasis) {
	cell, ok := e.Parent().(*extast.TableCell)
	if !ok || e.PreviousSibling() != nil || e.NextSibling() != nil || cell.PreviousSibling() == nil {
		return
	}
	if row, ok := cell.Parent().(*extast.TableRow); ok {
		row.SetAttributeString("class", []byte("routine"))
	}
}

// stripMarker removes a leading report marker (and the space after it)
// from n's first text.
func stripMarker(n ast.Node, src []byte) {
	t, ok := n.FirstChild().(*ast.Text)
	if !ok {
		return
	}
	v := t.Segment.Value(src)
	var markers []string
	for _, m := range severityMarker {
		markers = append(markers, m)
	}
	for _, m := range stateMarker {
		markers = append(markers, m)
	}
	markers = append(markers, markerAdvisory, markerKnown)
	for _, m := range markers {
		if bytes.HasPrefix(v, []byte(m+" ")) {
			t.Segment = t.Segment.WithStart(t.Segment.Start + len(m) + 1)
			return
		}
	}
}

// reportHTMLRenderer renders what goldmark's HTML renderer would not:
// the whitelisted <details> lines, and evidence blocks with the matched
// line marked.
type reportHTMLRenderer struct{}

func (reportHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindFencedCodeBlock, renderFence)
}

var (
	detailsLine = regexp.MustCompile(`^(?:<details>|<details open>|</details>|</summary>|<summary>)$`)
	summaryLine = regexp.MustCompile(`^<summary>((?:[^<>]|<code>[^<>]*</code>)*)</summary>$`)
	codeTag     = regexp.MustCompile(`<code>([^<>]*)</code>`)
)

// renderHTMLBlock lets through exactly the <details> and <summary> lines
// the report writes, re-escaping the summary text; anything else is
// dropped, as goldmark does without WithUnsafe.
func renderHTMLBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var lines []string
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		lines = append(lines, strings.TrimSpace(string(seg.Value(src))))
	}
	if n.HasClosure() {
		lines = append(lines, strings.TrimSpace(string(n.ClosureLine.Value(src))))
	}
	var out strings.Builder
	for _, l := range lines {
		switch {
		case l == "":
		case detailsLine.MatchString(l):
			out.WriteString(l + "\n")
		case summaryLine.MatchString(l):
			out.WriteString("<summary>" + summaryHTML(summaryLine.FindStringSubmatch(l)[1]) + "</summary>\n")
		default:
			_, _ = w.WriteString("<!-- raw HTML omitted -->\n")
			return ast.WalkSkipChildren, nil
		}
	}
	_, _ = w.WriteString(out.String())
	return ast.WalkSkipChildren, nil
}

// summaryHTML re-escapes a summary's text and keeps its <code> parts,
// marked as quoted.
func summaryHTML(s string) string {
	var b strings.Builder
	for {
		m := codeTag.FindStringSubmatchIndex(s)
		if m == nil {
			b.WriteString(html.EscapeString(html.UnescapeString(s)))
			return b.String()
		}
		b.WriteString(html.EscapeString(html.UnescapeString(s[:m[0]])))
		b.WriteString(`<code translate="no">` + html.EscapeString(html.UnescapeString(s[m[2]:m[3]])) + `</code>`)
		s = s[m[1]:]
	}
}

func renderRawHTML(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString("<!-- raw HTML omitted -->")
	}
	return ast.WalkSkipChildren, nil
}

// renderFence writes a fenced block as <pre translate="no">: it is always
// quoted text. A "log hl=N" block marks line N.
func renderFence(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	info := ""
	if n.Info != nil {
		info = string(n.Info.Segment.Value(src))
	}
	fields := strings.Fields(info)
	lang, mark := "", 0
	if len(fields) > 0 {
		lang = fields[0]
	}
	for _, f := range fields[1:] {
		if v, ok := strings.CutPrefix(f, "hl="); ok {
			mark, _ = strconv.Atoi(v)
		}
	}
	class := ""
	switch lang {
	case "log":
		class = ` class="log"`
	case "text", "":
	default:
		class = ` class="language-` + html.EscapeString(lang) + `"`
	}
	_, _ = w.WriteString(`<pre translate="no"` + class + `><code>`)
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		line := util.EscapeHTML(bytes.TrimRight(seg.Value(src), "\n"))
		switch {
		case i+1 == mark:
			_, _ = w.WriteString(`<mark>`)
			_, _ = w.Write(line)
			_, _ = w.WriteString("\n</mark>")
		case lang == "log":
			// Each line its own box, for the stylesheet's hanging indent;
			// the line break stays inside it, so copying keeps lines.
			_, _ = w.WriteString(`<span class="line">`)
			_, _ = w.Write(line)
			_, _ = w.WriteString("\n</span>")
		default:
			_, _ = w.Write(line)
			_, _ = w.WriteString("\n")
		}
	}
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// htmlLang is the value of <html lang>.
func htmlLang(lang string) string { return i18n.HTMLLang(lang) }

// AlignStyleSources are the CSP sources that allow the style attributes
// goldmark writes on aligned table cells (text-align left, center and
// right) and no other inline style. A page that shows MarkdownToHTML
// output puts them in its style-src.
var AlignStyleSources = "'unsafe-hashes' " + cspHash("text-align:left") + " " + cspHash("text-align:center") + " " + cspHash("text-align:right")

// cspHash is the CSP source that allows exactly the inline text s.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// pageCSP allows nothing to load (no scripts, no fonts, no images from
// anywhere) and no inline style but the page's own stylesheet and the
// table alignments, by hash. A report must work offline and must not call
// home, and the policy is a second line of defence behind escaping.
var pageCSP = "default-src 'none'; style-src " + cspHash(reportCSS) + " " + AlignStyleSources +
	"; img-src data:; base-uri 'none'; form-action 'none'"

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" {{.CSP}}>
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
		CSP                  template.HTMLAttr
		CSS                  template.CSS
		Body                 template.HTML
	}{
		Lang:    htmlLang(lang),
		Title:   title,
		Version: version,
		// Safe: a constant of this package; the attribute form keeps
		// its quotes readable in the page.
		CSP: template.HTMLAttr(`content="` + pageCSP + `"`),
		CSS: template.CSS(reportCSS),
		// Safe: goldmark output with raw HTML disabled but for the
		// whitelisted <details> lines.
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
