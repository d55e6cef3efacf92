package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"
)

// errorer is the part of testing.T the checkers use, so that their own
// test can watch them fail.
type errorer interface {
	Helper()
	Errorf(format string, args ...any)
}

// recorder is an errorer that remembers whether it was told of an error.
type recorder struct{ failed bool }

func (*recorder) Helper()                 {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

// inertHTML fails the test when page could run or load anything: a script
// element other than the site's own files, an event-handler attribute, a
// link or source with a scheme that runs code or leaves the page, an
// embedded frame or object, an outside link without rel="noopener
// noreferrer", or a page without a Content-Security-Policy that forbids
// inline script and outside requests. site is true for static-site pages,
// which may load the site's own scripts by relative path.
func inertHTML(t errorer, name string, page []byte, site bool) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(page))
	csp := ""
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Errorf("%s: %v", name, z.Err())
			}
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		attrs := map[string]string{}
		for _, a := range tok.Attr {
			k := strings.ToLower(a.Key)
			attrs[k] = a.Val
			if strings.HasPrefix(k, "on") {
				t.Errorf("%s: event handler %s=%q on <%s>", name, a.Key, a.Val, tok.Data)
			}
		}
		switch tok.Data {
		case "script":
			src, ok := attrs["src"]
			if !site || !ok || !localRef(src) {
				t.Errorf("%s: <script %v>", name, tok.Attr)
			}
		case "form":
			// The site's filter form submits nowhere; scripts read it.
			if _, ok := attrs["action"]; !site || ok {
				t.Errorf("%s: <form %v>", name, tok.Attr)
			}
		case "iframe", "frame", "object", "embed", "base", "img", "video", "audio", "source", "svg:image", "image":
			if tok.Data == "img" && strings.HasPrefix(attrs["src"], "data:") {
				continue
			}
			t.Errorf("%s: <%s %v>", name, tok.Data, tok.Attr)
		case "meta":
			if strings.EqualFold(attrs["http-equiv"], "content-security-policy") {
				csp = attrs["content"]
			}
			if strings.EqualFold(attrs["http-equiv"], "refresh") {
				t.Errorf("%s: meta refresh %q", name, attrs["content"])
			}
		}
		for _, k := range []string{"href", "src", "action", "formaction", "xlink:href", "srcset", "poster"} {
			v, ok := attrs[k]
			if !ok {
				continue
			}
			switch {
			case localRef(v):
			case tok.Data == "link" && v == "data:,":
			case tok.Data == "a" && (strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://")):
				if !hasRel(attrs["rel"], "noopener", "noreferrer") {
					t.Errorf("%s: outside link %q without rel=\"noopener noreferrer\"", name, v)
				}
			default:
				t.Errorf("%s: <%s %s=%q>", name, tok.Data, k, v)
			}
		}
	}
	checkCSP(t, name, csp, site)
}

// localRef reports whether a URL reference stays on the page or the site:
// a fragment or a relative path without a scheme.
func localRef(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || strings.HasPrefix(v, "#") {
		return true
	}
	u, err := url.Parse(v)
	if err != nil {
		return false
	}
	return u.Scheme == "" && u.Host == "" && !strings.HasPrefix(v, "//") && !strings.HasPrefix(v, "/")
}

func hasRel(rel string, want ...string) bool {
	have := map[string]bool{}
	for _, f := range strings.Fields(strings.ToLower(rel)) {
		have[f] = true
	}
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}

// checkCSP: the policy forbids everything by default, inline script and
// script from anywhere but the site, and every outside request.
func checkCSP(t errorer, name, csp string, site bool) {
	t.Helper()
	if csp == "" {
		t.Errorf("%s: no Content-Security-Policy", name)
		return
	}
	dirs := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) > 0 {
			dirs[strings.ToLower(f[0])] = f[1:]
		}
	}
	if strings.Join(dirs["default-src"], " ") != "'none'" {
		t.Errorf("%s: CSP default-src %q, want 'none'", name, dirs["default-src"])
	}
	for d, srcs := range dirs {
		for _, s := range srcs {
			ls := strings.ToLower(s)
			if strings.Contains(ls, "://") || ls == "*" || ls == "http:" || ls == "https:" || strings.HasPrefix(ls, "*.") {
				t.Errorf("%s: CSP %s allows outside source %s", name, d, s)
			}
			if (d == "script-src" || d == "script-src-elem" || d == "script-src-attr") && (ls == "'unsafe-inline'" || ls == "'unsafe-eval'" || ls == "data:") {
				t.Errorf("%s: CSP %s allows %s", name, d, s)
			}
		}
	}
	if scripts, ok := dirs["script-src"]; ok && (!site || strings.Join(scripts, " ") != "'self'") {
		t.Errorf("%s: CSP script-src %q", name, scripts)
	}
	for _, d := range []string{"base-uri", "form-action"} {
		if strings.Join(dirs[d], " ") != "'none'" {
			t.Errorf("%s: CSP %s %q, want 'none'", name, d, dirs[d])
		}
	}
}

// markdownAsHTML renders Markdown the way a permissive host would, raw
// HTML allowed, so that markup that escaped the report's escaping shows.
func markdownAsHTML(t errorer, md []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md, &out); err != nil {
		t.Errorf("markdown: %v", err)
	}
	return out.Bytes()
}

// inertMarkdown: rendered with raw HTML allowed, the Markdown is inert.
func inertMarkdown(t errorer, name string, md []byte) {
	t.Helper()
	page := markdownAsHTML(t, md)
	// A fragment has no policy of its own; give it the strictest.
	page = append([]byte(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; base-uri 'none'; form-action 'none'">`), page...)
	inertHTML(t, name+" (as HTML)", page, false)
}

// inertText: terminal output holds no control character but newline and
// tab (no ANSI escapes, no OSC 8 hyperlinks, no carriage returns that
// overwrite a line).
func inertText(t errorer, name, s string) {
	t.Helper()
	for i, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			lo := max(0, i-40)
			t.Errorf("%s: control character %U at %d: %q", name, r, i, s[lo:min(len(s), i+40)])
			return
		}
	}
}

// inertXML: the document parses and holds no element from the data.
func inertXML(t errorer, name string, doc []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if se, ok := tok.(xml.StartElement); ok && (strings.EqualFold(se.Name.Local, "script") || strings.EqualFold(se.Name.Local, "img")) {
			t.Errorf("%s: element <%s> from the data", name, se.Name.Local)
		}
	}
}

// inertOutput checks one -o format's output.
func inertOutput(t *testing.T, format string, out []byte) {
	t.Helper()
	switch format {
	case "html":
		inertHTML(t, "-o html", out, false)
	case "markdown":
		inertMarkdown(t, "-o markdown", out)
	case "json", "sarif":
		if !json.Valid(out) {
			t.Errorf("-o %s: not valid JSON", format)
		}
	case "junit":
		inertXML(t, "-o junit", out)
	default:
		inertText(t, "-o "+format, string(out))
	}
}

// inertTree checks every file a report or site command wrote.
func inertTree(t *testing.T, root string, site bool) {
	t.Helper()
	n := 0
	for _, rel := range treeOf(t, root) {
		if strings.HasSuffix(rel, "/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(rel) {
		case ".html":
			n++
			inertHTML(t, rel, data, site)
		case ".md":
			n++
			inertMarkdown(t, rel, data)
		}
	}
	if n == 0 {
		t.Errorf("%s: no page written", root)
	}
}

// outsideFences returns the payloads that occur in s outside a fenced code
// block.
func outsideFences(s string, payloads []string) []string {
	out := unfenced(s)
	var found []string
	for _, p := range payloads {
		if strings.Contains(out, p) {
			found = append(found, p)
		}
	}
	return found
}

// unfenced returns the lines of s outside fenced code blocks: Markdown
// fences of three or more backticks or tildes, closed by a fence of the
// same character at least as long.
func unfenced(s string) string {
	var outside strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(s, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence == "" {
			if f := fenceOf(trimmed); f != "" {
				fence = f
				continue
			}
			outside.WriteString(line)
			continue
		}
		if f := fenceOf(trimmed); f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.Trim(trimmed, f[:1]) == "" {
			fence = ""
		}
	}
	return outside.String()
}

func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

func describe(args []string) string { return fmt.Sprintf("traindoc %s", strings.Join(args, " ")) }

// TestInertCheckersCatch: the checkers above fail on what they are there
// to catch, so that a passing hostile test means something.
func TestInertCheckersCatch(t *testing.T) {
	const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'">`
	fails := func(check func(t errorer)) bool {
		r := &recorder{}
		check(r)
		return r.failed
	}
	for _, bad := range []string{
		`<script>alert(1)</script>`,
		`<script src="https://cdn.invalid/x.js"></script>`,
		`<img src=x onerror=alert(1)>`,
		`<a href="javascript:alert(1)">x</a>`,
		`<a href="https://example.invalid/">x</a>`,
		`<a href="//example.invalid/">x</a>`,
		`<iframe src="x.html"></iframe>`,
		`<p onclick="x">`,
		`<meta http-equiv="refresh" content="0;url=https://evil.invalid">`,
	} {
		if !fails(func(t errorer) { inertHTML(t, "bad", []byte(csp+bad), true) }) {
			t.Errorf("inertHTML passed %s", bad)
		}
	}
	for _, bad := range []string{
		``,
		`<meta http-equiv="Content-Security-Policy" content="default-src *">`,
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'none'">`,
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src https://x.invalid; base-uri 'none'; form-action 'none'">`,
	} {
		if !fails(func(t errorer) { inertHTML(t, "bad", []byte(bad+"<p>x</p>"), true) }) {
			t.Errorf("inertHTML passed the policy %s", bad)
		}
	}
	if fails(func(t errorer) {
		inertHTML(t, "good", []byte(csp+`<a href="#x">x</a><a rel="noopener noreferrer" href="https://example.invalid/">y</a><script src="../assets/site.js"></script>`), true)
	}) {
		t.Error("inertHTML failed a clean page")
	}
	for _, bad := range []string{"<script>alert(1)</script>\n", "[x](javascript:alert(1))\n", "<img src=x onerror=alert(1)>\n"} {
		if !fails(func(t errorer) { inertMarkdown(t, "bad", []byte(bad)) }) {
			t.Errorf("inertMarkdown passed %q", bad)
		}
	}
	if !fails(func(t errorer) { inertText(t, "bad", "a\x1b[2Jb") }) {
		t.Error("inertText passed an ANSI escape")
	}
	if got := outsideFences("a\n```text\nsecret payload\n```\nloose payload\n", []string{"secret payload", "loose payload"}); len(got) != 1 || got[0] != "loose payload" {
		t.Errorf("outsideFences = %q", got)
	}
}
