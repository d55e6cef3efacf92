package site

import (
	"html"
	"html/template"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token classes of the Rego highlighter; the stylesheet colours them.
const (
	tokComment  = "c"
	tokString   = "s"
	tokKeyword  = "k"
	tokNumber   = "n"
	tokOperator = "o"
	tokBuiltin  = "b"
)

var regoKeywords = map[string]bool{
	"package": true, "import": true, "as": true, "default": true, "else": true,
	"not": true, "with": true, "some": true, "every": true, "in": true,
	"if": true, "contains": true, "true": true, "false": true, "null": true,
}

// regoBuiltinRoots are names that are not keywords but read better set
// apart: the documents a rule reads from.
var regoBuiltinRoots = map[string]bool{"input": true, "data": true, "future": true, "rego": true}

// highlightRego returns src as escaped HTML with <span class> around
// comments, strings, keywords, numbers and operators. It is a lexer, not a
// parser: it never fails, and text it does not recognise stays plain, so
// the output always shows the source exactly.
func highlightRego(src string) template.HTML {
	var b strings.Builder
	emit := func(class, text string) {
		if class == "" {
			b.WriteString(html.EscapeString(text))
			return
		}
		b.WriteString(`<span class="`)
		b.WriteString(class)
		b.WriteString(`">`)
		b.WriteString(html.EscapeString(text))
		b.WriteString(`</span>`)
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '#':
			j := indexFrom(src, i, '\n')
			emit(tokComment, src[i:j])
			i = j
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				j++
			}
			if j < len(src) && src[j] == '"' {
				j++
			}
			emit(tokString, src[i:j])
			i = j
		case c == '`':
			j := indexFrom(src, i+1, '`')
			if j < len(src) {
				j++
			}
			emit(tokString, src[i:j])
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isDigit(src[j]) || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
				((src[j] == '+' || src[j] == '-') && j > i && (src[j-1] == 'e' || src[j-1] == 'E'))) {
				j++
			}
			emit(tokNumber, src[i:j])
			i = j
		case isIdentStart(src, i):
			j := i
			for j < len(src) {
				r, n := utf8.DecodeRuneInString(src[j:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += n
			}
			word := src[i:j]
			switch {
			case regoKeywords[word]:
				emit(tokKeyword, word)
			case regoBuiltinRoots[word]:
				emit(tokBuiltin, word)
			default:
				emit("", word)
			}
			i = j
		case strings.ContainsRune(":=!<>+-*/%|&", rune(c)):
			j := i + 1
			for j < len(src) && strings.ContainsRune(":=!<>|&", rune(src[j])) && j-i < 2 {
				j++
			}
			emit(tokOperator, src[i:j])
			i = j
		default:
			_, n := utf8.DecodeRuneInString(src[i:])
			emit("", src[i:i+n])
			i += n
		}
	}
	// Safe: every piece of source text went through html.EscapeString and
	// the only markup added is spans with fixed class names.
	return template.HTML(b.String())
}

func indexFrom(s string, from int, c byte) int {
	if from >= len(s) {
		return len(s)
	}
	if k := strings.IndexByte(s[from:], c); k >= 0 {
		return from + k
	}
	return len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '_' || unicode.IsLetter(r)
}
