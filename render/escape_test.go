package render

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	extast "github.com/yuin/goldmark/extension/ast"
)

// Payloads an attacker can put in a log line, an event message or an
// object field.
var payloads = []string{
	"<script>alert(1)</script>",
	"[x](javascript:alert(1))",
	"![img](http://example.invalid/x.png)",
	"<!-- comment -->",
	"```` fence ````",
	"`code`",
	"*bold* _em_ **strong** ~~del~~",
	"| a | b |",
	"# heading {#evil .x onclick=alert(1)}",
	"<http://example.invalid>",
	"see https://example.invalid/x and www.example.invalid or mail a@example.invalid",
	"&lt;script&gt;",
	"line one\nline two\r\n- item",
	"1. ordered",
	"- bullet",
	"\x1b[31mred\x1b[0m \x00 nul",
	"    indented code",
	"\\*escaped\\*",
}

// inlineAST parses s as Markdown and returns the document.
func inlineAST(t *testing.T, md string) (ast.Node, []byte) {
	t.Helper()
	src := []byte(md)
	doc := markdown.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext(parser.WithIDs(newHeadingIDs()))))
	return doc, src
}

// TestEscapeInlineIsLiteral: escaped text renders as exactly one
// paragraph of plain text that reads like the input, whatever it contains.
func TestEscapeInlineIsLiteral(t *testing.T) {
	for _, p := range payloads {
		t.Run(p, func(t *testing.T) {
			out, err := MarkdownToHTML([]byte("prefix " + escapeInline(p)))
			if err != nil {
				t.Fatal(err)
			}
			s := strings.TrimSpace(string(out))
			if !strings.HasPrefix(s, "<p>") || !strings.HasSuffix(s, "</p>") {
				t.Fatalf("escaped %q is not one paragraph: %s", p, s)
			}
			inner := strings.TrimSuffix(strings.TrimPrefix(s, "<p>"), "</p>")
			if strings.ContainsAny(inner, "<>") {
				t.Fatalf("escaped %q produced markup: %s", p, inner)
			}
			want := strings.Join(strings.Fields(cleanControl(strings.ReplaceAll(p, "\r\n", "\n"))), " ")
			got := strings.Join(strings.Fields(html.UnescapeString(inner)), " ")
			if got != "prefix "+want {
				t.Errorf("escaped %q reads %q, want %q", p, got, "prefix "+want)
			}
		})
	}
}

// TestEscapeInTableCell: escaped text stays in one cell.
func TestEscapeInTableCell(t *testing.T) {
	for _, p := range payloads {
		md := "| a | b |\n| --- | --- |\n| " + escapeInline(p) + " | end |\n"
		doc, _ := inlineAST(t, md)
		table, ok := doc.FirstChild().(*extast.Table)
		if !ok {
			t.Fatalf("%q: no table", p)
		}
		row := table.LastChild()
		if row.ChildCount() != 2 {
			t.Errorf("%q: row has %d cells, want 2", p, row.ChildCount())
		}
		if table.ChildCount() != 2 {
			t.Errorf("%q: table has %d rows, want header and one row", p, table.ChildCount())
		}
	}
}

// TestFenceHoldsText: a fenced block contains the text verbatim, however
// many backticks it has.
func TestFenceHoldsText(t *testing.T) {
	tests := []string{
		"plain",
		"```\nclose?\n```",
		"`````` six",
		"~~~\ntilde",
		"<script>alert(1)</script>\n[x](javascript:alert(1))",
	}
	for _, text := range tests {
		var b strings.Builder
		writeFenced(&b, "text", text)
		doc, src := inlineAST(t, b.String())
		cb, ok := doc.FirstChild().(*ast.FencedCodeBlock)
		if !ok {
			t.Fatalf("%q: not a fenced block", text)
		}
		var got bytes.Buffer
		for i := 0; i < cb.Lines().Len(); i++ {
			seg := cb.Lines().At(i)
			got.Write(seg.Value(src))
		}
		if strings.TrimRight(got.String(), "\n") != text {
			t.Errorf("fenced %q reads back %q", text, got.String())
		}
	}
}

func TestCodeSpan(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "`a`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"a\nb", "`a b`"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := codeSpan(tc.in); got != tc.want {
			t.Errorf("codeSpan(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTrimEvidence(t *testing.T) {
	var lines []string
	for i := 0; i < 100; i++ {
		lines = append(lines, "line")
	}
	tr := trimEvidence(strings.Join(lines, "\n"))
	if tr.TotalLines != 100 || tr.ShownLines != maxEvidenceLines {
		t.Errorf("trim: total %d shown %d", tr.TotalLines, tr.ShownLines)
	}
	long := trimEvidence(strings.Repeat("x", 5000))
	if !long.CutLines || len([]rune(long.Text)) > maxLineChars+5 {
		t.Errorf("long line not cut: %d runes", len([]rune(long.Text)))
	}
}

func TestFormatTime(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2026-03-12T02:46:24.158462635Z", "2026-03-12 02:46:24 UTC"},
		{"2026-03-12T10:46:24+08:00", "2026-03-12 02:46:24 UTC"},
		{"yesterday", "yesterday"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := formatTime(tc.in); got != tc.want {
			t.Errorf("formatTime(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHeadingIDs(t *testing.T) {
	md := "# 主要原因：CUDA 显存不足\n\n## 证据\n\n## 证据\n\n## Evidence & more!\n\n### 🔴 Primary cause\n\n## PyTorchJob ml-team/llama13b-sft\n"
	html, err := MarkdownToHTML([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h1 id="主要原因cuda-显存不足">`,
		`<h2 id="证据">`,
		`<h2 id="证据-1">`,
		`<h2 id="evidence--more">`,
		`<h3 id="-primary-cause">`,
		`<h2 id="` + githubSlug("PyTorchJob ml-team/llama13b-sft") + `">`,
	} {
		if !strings.Contains(string(html), want) {
			t.Errorf("missing %s in\n%s", want, html)
		}
	}
}
