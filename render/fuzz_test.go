package render

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"

	"github.com/traindoc/traindoc/engine/report"
)

// The fuzz targets here put arbitrary text where the report puts
// untrusted text (log lines, event messages, object names, model output)
// and check the promises of escape.go: in Markdown it stays text, a fenced
// block holds it to its end, and the HTML has no live markup from it.

// seedPayloads adds the hand-written payloads and template syntax.
func seedPayloads(f *testing.F) {
	for _, p := range payloads {
		f.Add(p)
	}
	for _, p := range []string{"{{ .Secret }}", "{% include x %}", "${{ secrets.TOKEN }}", "{{{raw}}}", "<%= x %>"} {
		f.Add(p)
	}
}

// FuzzEscapeInline: escaped text is one paragraph (or one table cell) of
// plain text that reads like the input; template syntax is kept as text.
func FuzzEscapeInline(f *testing.F) {
	seedPayloads(f)
	f.Fuzz(func(t *testing.T, s string) {
		esc := escapeInline(s)
		out, err := MarkdownToHTML([]byte("prefix " + esc))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSpace(string(out))
		if !strings.HasPrefix(got, "<p>") || !strings.HasSuffix(got, "</p>") {
			t.Fatalf("escaped %q is not one paragraph: %s", s, got)
		}
		for _, delim := range []string{"{{", "}}", "{%", "%}"} {
			if strings.Contains(esc, delim) {
				t.Fatalf("escaped %q holds the template delimiter %q: %s", s, delim, esc)
			}
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(got, "<p>"), "</p>")
		if strings.ContainsAny(inner, "<>") {
			t.Fatalf("escaped %q produced markup: %s", s, inner)
		}
		// Line breaks and tabs become spaces; other control characters
		// become U+FFFD.
		flat := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
		want := strings.Join(strings.Fields(cleanControl(flat)), " ")
		if read := strings.Join(strings.Fields(html.UnescapeString(inner)), " "); read != strings.TrimSpace("prefix "+want) {
			t.Fatalf("escaped %q reads %q, want %q", s, read, "prefix "+want)
		}

		md := "| a | b |\n| --- | --- |\n| " + esc + " | end |\n"
		doc, _ := inlineAST(t, md)
		table, ok := doc.FirstChild().(*extast.Table)
		if !ok || children(doc) != 1 {
			t.Fatalf("%q: not one table", s)
		}
		if children(table) != 2 || children(table.LastChild()) != 2 {
			t.Fatalf("%q: %d rows, last with %d cells; want 2 and 2", s, children(table), children(table.LastChild()))
		}
	})
}

// FuzzFence: a fenced block holds any text verbatim (after control
// characters are made visible) and nothing in it closes the block.
func FuzzFence(f *testing.F) {
	seedPayloads(f)
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		writeFenced(&b, "text", s)
		b.WriteString("after\n")
		doc, src := inlineAST(t, b.String())
		cb, ok := doc.FirstChild().(*ast.FencedCodeBlock)
		if !ok {
			t.Fatalf("%q: not a fenced block first", s)
		}
		if children(doc) != 2 {
			t.Fatalf("%q: %d blocks, want the fence and the paragraph after it", s, children(doc))
		}
		if info := string(cb.Info.Segment.Value(src)); info != "text" {
			t.Errorf("info string %q", info)
		}
		var got bytes.Buffer
		for i := 0; i < cb.Lines().Len(); i++ {
			seg := cb.Lines().At(i)
			got.Write(seg.Value(src))
		}
		want := strings.TrimRight(cleanControl(strings.ReplaceAll(s, "\r\n", "\n")), "\n")
		if strings.TrimRight(got.String(), "\n") != want {
			t.Errorf("fenced %q reads back %q", s, got.String())
		}
	})
}

// FuzzCodeSpan: a code span holds its text, whatever backticks it has.
func FuzzCodeSpan(f *testing.F) {
	seedPayloads(f)
	f.Add("``")
	f.Add("` a `")
	f.Fuzz(func(t *testing.T, s string) {
		span := codeSpan(s)
		if span == "" {
			return
		}
		doc, src := inlineAST(t, "x "+span+" y")
		p, ok := doc.FirstChild().(*ast.Paragraph)
		if !ok || children(doc) != 1 {
			t.Fatalf("%q: not one paragraph", s)
		}
		var spans []*ast.CodeSpan
		for c := p.FirstChild(); c != nil; c = c.NextSibling() {
			if cs, ok := c.(*ast.CodeSpan); ok {
				spans = append(spans, cs)
			}
		}
		if len(spans) != 1 {
			t.Fatalf("%q: %d code spans in %q", s, len(spans), "x "+span+" y")
		}
		var got strings.Builder
		for c := spans[0].FirstChild(); c != nil; c = c.NextSibling() {
			if tx, ok := c.(*ast.Text); ok {
				got.Write(tx.Segment.Value(src))
			}
		}
		// It reads as the text, but for the zero-width spaces that break
		// template delimiters (see templateBreaker).
		want := inlineText(s)
		read := strings.ReplaceAll(got.String(), "\u200b", "")
		if strings.TrimSpace(read) != strings.ReplaceAll(want, "\u200b", "") {
			t.Errorf("code span of %q reads %q", s, got.String())
		}
		for _, delim := range []string{"{{", "}}", "{%", "%}"} {
			if strings.Contains(got.String(), delim) {
				t.Errorf("code span of %q holds the template delimiter %q", s, delim)
			}
		}
	})
}

// FuzzCodeCell: a code span in a table cell stays in its cell.
func FuzzCodeCell(f *testing.F) {
	seedPayloads(f)
	f.Add("a | b")
	f.Add("`|`")
	f.Fuzz(func(t *testing.T, s string) {
		md := "| h1 | h2 |\n| --- | --- |\n| " + codeCell(s) + " | z |\n"
		doc, _ := inlineAST(t, md)
		tbl, ok := doc.FirstChild().(*extast.Table)
		if !ok {
			t.Fatalf("%q: no table", s)
		}
		row := tbl.FirstChild().NextSibling()
		if row == nil || children(row) != 2 {
			t.Fatalf("%q: the row does not have two cells: %s", s, md)
		}
	})
}

// hostileReport puts a, b and c in every field that holds text from the
// cluster, the logs or the model.
func hostileReport(a, b, c string) *report.Report {
	rank := 3
	ev := []report.Evidence{
		{Kind: a, Source: b, Object: &report.Object{Kind: "Pod", Namespace: c, Name: a}, Field: b, File: c, Line: 7, Text: a, Time: b, Count: 2},
		{Kind: "log", Source: "pod", Text: b + "\n" + c},
		{Kind: "event", Text: c},
	}
	primary := report.Finding{
		ID: a, Rule: b, Category: c, Layer: a, Severity: "error", Owner: b,
		Title: report.Text{En: a, Zh: b}, Message: report.Text{En: b, Zh: c},
		Subjects: []report.Subject{{Kind: a, Name: b, Container: c, Rank: &rank}},
		Evidence: ev, FirstSeen: c,
	}
	other := report.Finding{
		ID: "other-" + b, Rule: "r", Severity: a, Owner: "user", Title: report.Text{En: c},
		Message: report.Text{En: a}, CausedBy: a, Consequence: true, Evidence: ev[1:],
	}
	job := report.Job{
		Kind: a, APIVersion: "v1", Namespace: b, Name: c, Phase: a, KindPhase: b, CreatedAt: c,
		Summary: report.Text{En: b, Zh: a}, Primary: &primary, Findings: []report.Finding{primary, other},
		Replicas: []report.Replica{{Type: a, Expected: 2, Failed: 1}},
		Timeline: []report.Entry{{Time: a, Kind: b, Object: c, Text: a, TextZh: b, Warning: true}, {Time: c, Kind: "event", Object: a, Text: c}},
		Progress: &report.Progress{ThroughputUnit: a, Throughput: 2, CheckpointTime: b, LastStepTime: c},
		Nodes:    []string{a, b}, Notes: []string{c},
		Explanation: &report.Explanation{Model: a, Healthy: b, Error: c, Analysis: a + "\n\n" + b, Solution: []string{b, c}, Missing: a},
	}
	second := job
	second.Name = a
	second.Primary = nil
	return &report.Report{
		Tool: report.Tool{Version: "test"}, CollectedAt: a, Source: b, Warnings: []string{a, c},
		Jobs: []report.Job{job, second},
	}
}

// FuzzReport renders a report full of arbitrary text and checks the whole
// Markdown and HTML output in both languages.
func FuzzReport(f *testing.F) {
	for _, p := range payloads {
		f.Add(p, "<img src=x onerror=alert(1)>", "{{ .Secret }} {% raw %}")
	}
	f.Add("a", "b", "c")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		rep := hostileReport(a, b, c)
		// One language per input halves the cost; the inputs cover both.
		lang := Languages[len(a)%len(Languages)]
		md := ReportMarkdown(rep, lang, "test")
		checkMarkdown(t, rep, lang, md)
		page, err := reportHTML(rep, lang, "test")
		if err != nil {
			t.Fatal(err)
		}
		checkHTML(t.Errorf, lang, page)
	})
}

// checkMarkdown parses the report's Markdown: no HTML but the whitelisted
// <details> lines, no link but to a heading of the document (by the id
// GitHub gives it), every line of a fenced block a line of the evidence
// or of a pod's log, and every table row has the header's number of cells.
func checkMarkdown(t *testing.T, rep *report.Report, lang string, md []byte) {
	t.Helper()
	quoted := map[string]bool{}
	addLines := func(text string) {
		for _, l := range strings.Split(cleanControl(strings.ReplaceAll(text, "\r\n", "\n")), "\n") {
			quoted[strings.TrimRight(cutLine(l), "\r")] = true
		}
	}
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		fs := append([]report.Finding(nil), j.Findings...)
		if j.Primary != nil {
			fs = append(fs, *j.Primary)
		}
		for _, f := range fs {
			for _, e := range f.Evidence {
				addLines(trimEvidence(e.Text).Text)
				addLines(strings.Join(e.Before, "\n"))
				addLines(strings.Join(e.After, "\n"))
			}
		}
		for _, p := range j.Pods {
			addLines(strings.Join(p.LastLines, "\n"))
		}
	}
	doc, src := inlineAST(t, string(md))
	ids := slugs{}
	have := map[string]bool{}
	var links []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			have[ids.next(string(plainText(n, src)))] = true
		case *ast.HTMLBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				l := strings.TrimSpace(string(seg.Value(src)))
				if l != "" && !detailsLine.MatchString(l) && !summaryLine.MatchString(l) {
					t.Errorf("%s: raw HTML %q", lang, l)
				}
			}
		case *ast.RawHTML:
			t.Errorf("%s: inline raw HTML", lang)
		case *ast.AutoLink:
			t.Errorf("%s: autolink %q", lang, n.URL(src))
		case *ast.Image:
			t.Errorf("%s: image %q", lang, n.Destination)
		case *ast.Link:
			links = append(links, string(n.Destination))
		case *ast.FencedCodeBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				l := strings.TrimRight(string(seg.Value(src)), "\n")
				if !quoted[l] {
					t.Errorf("%s: fenced line %q is no evidence or log line", lang, l)
				}
			}
		case *extast.Table:
			cells := children(n.FirstChild())
			for row := n.FirstChild(); row != nil; row = row.NextSibling() {
				if c := children(row); c != cells {
					t.Errorf("%s: table row with %d cells, header has %d", lang, c, cells)
				}
			}
		}
		return ast.WalkContinue, nil
	})
	for _, l := range links {
		id, ok := strings.CutPrefix(l, "#")
		if !ok || !have[id] {
			t.Errorf("%s: link to %q, which no heading defines", lang, l)
		}
	}
}

// children counts n's children by walking them: goldmark's ChildCount is
// stale after the table transformer replaces a paragraph.
func children(n ast.Node) int {
	c := 0
	for x := n.FirstChild(); x != nil; x = x.NextSibling() {
		c++
	}
	return c
}

// tagAttr matches the attributes of one tag.
var tagAttr = regexp.MustCompile(`\s([^\s="'>/]+)(?:\s*=\s*"([^"]*)")?`)

// allowAttrs are the attributes the page template and goldmark write.
var allowAttrs = map[string]bool{}

// allowTags are the elements the page template and goldmark write for a
// report; anything else came from the input.
var allowTags = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`!DOCTYPE html head meta title link style body main h1 h2 h3 h4 h5 h6 p a
		strong em code pre table thead tbody tr th td ul ol li blockquote hr br del details summary mark span`) {
		allowTags[t] = true
	}
	for _, a := range strings.Fields(`lang charset name content http-equiv rel href id class aria-hidden align start style translate data-label`) {
		allowAttrs[a] = true
	}
}

// checkHTML: every tag is one the report itself writes, every URL is an
// anchor in the page, and no script or dropped raw HTML is left. It walks
// the tags by hand: regular expressions over the whole page made this the
// slowest part of FuzzReport.
func checkHTML(errorf func(format string, args ...any), lang string, page []byte) {
	s := string(page)
	// The embedded stylesheet is constant and holds '>' selectors.
	if i, j := strings.Index(s, "<style>"), strings.Index(s, "</style>"); i >= 0 && j > i {
		s = s[:i+len("<style>")] + s[j:]
	}
	lower := strings.ToLower(s)
	// "javascript:" may be text; as a URL it fails the check below.
	for _, bad := range []string{"<script", "raw html omitted"} {
		if i := strings.Index(lower, bad); i >= 0 {
			errorf("%s: %q in HTML: …%s…", lang, bad, s[max(0, i-80):min(len(s), i+80)])
		}
	}
	ids := map[string]bool{}
	var links []string
	for rest := s; ; {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			break
		}
		rest = rest[i:]
		j := strings.IndexByte(rest, '>')
		if j < 0 {
			errorf("%s: unclosed %q", lang, rest[:min(len(rest), 40)])
			break
		}
		tag := rest[:j+1]
		rest = rest[j+1:]
		name := strings.TrimPrefix(tag[1:], "/")
		if k := strings.IndexAny(name, " \t\n>"); k >= 0 {
			name = name[:k]
		}
		if strings.HasPrefix(name, "!--") {
			name = "!--"
		}
		if !allowTags[name] {
			errorf("%s: tag %s in HTML", lang, tag)
		}
		if name == "!DOCTYPE" || name == "!--" {
			continue
		}
		for _, m := range tagAttr.FindAllStringSubmatch(strings.TrimSuffix(tag[1:], ">"), -1) {
			if !allowAttrs[strings.ToLower(m[1])] {
				errorf("%s: attribute %s in HTML tag %s", lang, m[1], tag)
				continue
			}
			switch v := html.UnescapeString(m[2]); {
			case m[1] == "style":
				// Table column alignment, the only style goldmark writes.
				if v != "text-align:right" && v != "text-align:left" && v != "text-align:center" {
					errorf("%s: style=%q in HTML", lang, v)
				}
			case m[1] != "href":
				if m[1] == "id" {
					ids[v] = true
				}
			case v == "data:,":
			case strings.HasPrefix(v, "#"):
				// goldmark percent-encodes non-ASCII in hrefs; browsers
				// decode a fragment before looking for the id.
				frag, err := url.PathUnescape(v[1:])
				if err != nil {
					frag = v[1:]
				}
				links = append(links, frag)
			default:
				errorf("%s: href=%q in HTML", lang, v)
			}
		}
	}
	// An index entry or a permalink must lead somewhere.
	for _, id := range links {
		if !ids[id] {
			errorf("%s: link to #%s, which no element has", lang, id)
		}
	}
	if strings.Count(s, "<html") != 1 || strings.Count(s, "</main>") != 1 {
		errorf("%s: page structure broken", lang)
	}
}

// TestIndexLinksResolve: the index of a multi-job report links to each
// job's heading, also when a name holds line breaks, tabs or nothing a
// slug keeps. Found by FuzzReport: the index slugged the raw name while
// the heading showed it on one line, so the link led nowhere.
func TestIndexLinksResolve(t *testing.T) {
	for _, name := range []string{"line one\nline two\r\n- item", "tab\there", "///", " padded ", "a\x00b"} {
		rep := &report.Report{Jobs: []report.Job{
			{Kind: "PyTorchJob", Namespace: "ns", Name: name},
			{Kind: "PyTorchJob", Namespace: "ns", Name: "other"},
		}}
		if name == "///" {
			rep.Jobs[0].Kind, rep.Jobs[0].Namespace = "", ""
		}
		page, err := reportHTML(rep, "en", "test")
		if err != nil {
			t.Fatal(err)
		}
		checkHTML(t.Errorf, fmt.Sprintf("%q", name), page)
	}
}

// TestTemplateSyntaxInert: template syntax in untrusted text reaches the
// reader as the same characters. The page template does not execute it,
// and the Markdown holds no template delimiter a Liquid (Jekyll), Jinja or
// Hugo pass would see: braces are escaped, and so is the '%' of "{%" and
// "%}" (it used to stay, leaving "\{%" for Liquid). Evidence in fences
// and code spans is verbatim by design and not used here.
func TestTemplateSyntaxInert(t *testing.T) {
	for _, tmpl := range []string{"{{ .Secret }}", "{% include secrets.txt %}", "${{ secrets.TOKEN }}", "{{{raw}}}", "{#comment#}", "{%- raw -%}"} {
		t.Run(tmpl, func(t *testing.T) {
			rep := &report.Report{
				Warnings: []string{tmpl},
				Jobs: []report.Job{{
					Kind: "PyTorchJob", Namespace: tmpl, Name: tmpl, Phase: tmpl,
					Summary:     report.Text{En: tmpl},
					Timeline:    []report.Entry{{Kind: "event", Object: tmpl, Text: tmpl}},
					Explanation: &report.Explanation{Model: tmpl, Error: tmpl, Analysis: tmpl, Solution: []string{tmpl}},
				}},
			}
			md := string(ReportMarkdown(rep, "en", "test"))
			for _, delim := range []string{"{{", "}}", "{%", "%}", "{#", "#}"} {
				if strings.Contains(md, delim) {
					t.Errorf("markdown holds %q:\n%s", delim, md)
				}
			}
			page, err := reportHTML(rep, "en", "test")
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(strings.ReplaceAll(html.UnescapeString(string(page)), "\u200b", ""), tmpl); n < 8 {
				t.Errorf("%q is in the HTML %d times, want it as text in every field", tmpl, n)
			}
		})
	}
}

// TestCheckHTMLCatches: the page checker of FuzzReport fails on what it
// is there to catch, and passes a clean page.
func TestCheckHTMLCatches(t *testing.T) {
	page := func(body string) []byte {
		return []byte("<!DOCTYPE html>\n<html><head><style>a > b {}</style></head><body><main>" + body + "</main></body></html>")
	}
	for _, bad := range []string{
		`<script>alert(1)</script>`,
		`<img src="x">`,
		`<a href="javascript:alert(1)">x</a>`,
		`<a href="https://example.invalid/">x</a>`,
		`<a href="#nowhere">x</a>`,
		`<!-- raw HTML omitted -->`,
		`<p onclick="x">`,
		`<input type="checkbox">`,
		`<td style="background:url(x)">`,
	} {
		failed := false
		checkHTML(func(string, ...any) { failed = true }, "en", page(bad))
		if !failed {
			t.Errorf("checkHTML passed %s", bad)
		}
	}
	checkHTML(t.Errorf, "en", page(`<h2 id="x" class="finding">a &lt;b&gt;</h2><p><a href="#x" aria-hidden="true">x</a></p>`))
}
