package render

import (
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
)

// A phrase is a sentence of traindoc's in one language with the words it
// quotes from the cluster (names, reasons, log text) kept apart, so that
// every format can mark them: code spans in Markdown (and so
// translate="no" in HTML), plain text in a terminal. A reader, and a
// translation tool, can then tell traindoc's words from quoted ones.
type phrase []seg

type seg struct {
	text     string
	verbatim bool
}

// words is traindoc's own text.
func words(s string) phrase {
	if s == "" {
		return nil
	}
	return phrase{{text: s}}
}

// quote is text from the cluster, shown as it is.
func quote(s string) phrase {
	if s == "" {
		return nil
	}
	return phrase{{text: s, verbatim: true}}
}

// fill renders a catalogue string of the report namespace with its {name}
// placeholders replaced by phrases (or plain strings, which count as
// traindoc's words).
func fill(lang, key string, args ...any) phrase {
	return fillString(i18n.T(lang, "report."+key), args...)
}

// fillTerm is fill for a string of another namespace, given in full.
func fillKey(lang, fullKey string, args ...any) phrase {
	return fillString(i18n.T(lang, fullKey), args...)
}

func fillString(tmpl string, args ...any) phrase {
	vals := map[string]phrase{}
	for i := 0; i+1 < len(args); i += 2 {
		name, _ := args[i].(string)
		switch v := args[i+1].(type) {
		case phrase:
			vals[name] = v
		case string:
			vals[name] = words(v)
		}
	}
	var out phrase
	for tmpl != "" {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			break
		}
		name := tmpl[i+1 : i+j]
		v, ok := vals[name]
		if !ok {
			out = out.add(words(tmpl[:i+j+1])...)
			tmpl = tmpl[i+j+1:]
			continue
		}
		out = out.add(words(tmpl[:i])...)
		out = out.add(v...)
		tmpl = tmpl[i+j+1:]
	}
	return out.add(words(tmpl)...)
}

// add appends segments, merging neighbours of the same kind.
func (p phrase) add(ss ...seg) phrase {
	for _, s := range ss {
		if s.text == "" {
			continue
		}
		if n := len(p); n > 0 && p[n-1].verbatim == s.verbatim && !s.verbatim {
			p[n-1].text += s.text
			continue
		}
		p = append(p, s)
	}
	return p
}

// join joins phrases with a separator of traindoc's.
func join(ps []phrase, sep string) phrase {
	var out phrase
	for i, p := range ps {
		if i > 0 {
			out = out.add(words(sep)...)
		}
		out = out.add(p...)
	}
	return out
}

// md is the phrase as inline Markdown: traindoc's words escaped, quoted
// words as code spans.
func (p phrase) md() string { return p.markdown(codeSpan) }

// cell is the phrase inside a table cell, where a pipe in a code span
// must be escaped too.
func (p phrase) cell() string { return p.markdown(codeCell) }

func (p phrase) markdown(code func(string) string) string {
	var b strings.Builder
	for i, s := range p {
		if s.verbatim {
			b.WriteString(code(s.text))
			continue
		}
		t := lineBreaks.Replace(cleanControl(s.text))
		if i == 0 {
			t = strings.TrimLeft(t, " ")
		}
		if i == len(p)-1 {
			t = strings.TrimRight(t, " ")
		}
		b.WriteString(escapeSegment(t, i == 0))
	}
	return b.String()
}

// visible is the phrase's text as a reader sees it once rendered: control
// characters shown as U+FFFD, line breaks as spaces, as markdown and
// codeSpan write them. Heading ids are made from it, so that a link to a heading whose
// text held a control character still finds it.
func (p phrase) visible() string {
	var b strings.Builder
	for _, s := range p {
		if s.verbatim {
			b.WriteString(inlineText(s.text)) // as codeSpan shows it
			continue
		}
		b.WriteString(lineBreaks.Replace(cleanControl(s.text)))
	}
	return strings.TrimSpace(b.String())
}

// plain is the phrase as text.
func (p phrase) plain() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteString(s.text)
	}
	return b.String()
}

func (p phrase) empty() bool { return len(p) == 0 }

// messagePhrase is a finding's message with the parameter values the rule
// put into it (object names, quoted messages, numbers with units) marked
// as quoted: they are data, not the rule's words.
func messagePhrase(f *report.Finding, lang string) phrase {
	msg := strings.TrimSpace(f.Message.In(lang))
	if msg == "" {
		return nil
	}
	var vals []string
	for _, v := range f.Params {
		s, ok := v.(string)
		// A plain lower-case word is a rule's own code ("pressure",
		// "drain") that may also be a word of its sentence: not data.
		if !ok || len(s) < 3 || isNumber(s) || plainWord(s) || !strings.Contains(msg, s) {
			continue
		}
		vals = append(vals, s)
	}
	// Longest first, so that a value inside another is not split out.
	sort.Slice(vals, func(a, b int) bool {
		if len(vals[a]) != len(vals[b]) {
			return len(vals[a]) > len(vals[b])
		}
		return vals[a] < vals[b]
	})
	return splitQuoted(msg, vals)
}

func splitQuoted(s string, vals []string) phrase {
	for _, v := range vals {
		if i := strings.Index(s, v); i >= 0 {
			return splitQuoted(s[:i], vals).add(quote(v)...).add(splitQuoted(s[i+len(v):], vals)...)
		}
	}
	return words(s)
}

func plainWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' && r != '-' {
			return false
		}
	}
	return true
}
