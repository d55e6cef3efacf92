package render

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Everything that comes from the cluster (names, messages, log lines) is
// untrusted. In Markdown it is either fenced (evidence) or escaped (inline
// text and table cells), so that no log line can become a link, an HTML
// tag, emphasis, a table column or a heading attribute.

// inlineSpecials are the ASCII characters that can start Markdown or GFM
// syntax inside a line. CommonMark allows a backslash before any ASCII
// punctuation, so escaping them is always safe. '{' and '}' matter because
// the HTML renderer parses heading attributes; '&' stops entity references
// like "&lt;" from being decoded into markup-looking text.
const inlineSpecials = "\\`*_[]<>|#!~&{}"

var orderedStart = regexp.MustCompile(`^[0-9]{1,9}[.)]( |$)`)

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// cleanControl removes terminal colour sequences and replaces other control
// characters (except tab) with U+FFFD, so that they are visible and cannot
// confuse a terminal, an XML parser or a Markdown parser.
func cleanControl(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiEscape.ReplaceAllString(s, "")
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t', r == '\n':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return '\uFFFD'
		case r == refOpen || r == refClose:
			// The renderer's own link markers (see anchors.go) never come
			// from the input.
			return '\uFFFD'
		}
		return r
	}, s)
}

// escapeInline makes untrusted text safe and literal inside a Markdown
// paragraph, list item, heading or table cell. Newlines become spaces so the
// text stays on its line (a newline could start a new block or end a table
// row).
func escapeInline(s string) string { return escapeSegment(inlineText(s), true) }

// escapeSegment escapes one piece of a line that is already one line of
// clean text. Only a piece at the start of a line needs the escapes that
// stop it from opening a block (a list, a heading).
func escapeSegment(s string, lineStart bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(inlineSpecials, c) >= 0 || templatePercent(s, i) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	out := b.String()
	if strings.Contains(out, "://") || strings.Contains(out, "@") || strings.Contains(strings.ToLower(out), "www.") {
		out = defuseAutolinks(out)
	}
	if !lineStart {
		return out
	}
	// A leading "1." or "-" would not form a list inside our own lines, but
	// text placed at the start of a line by a caller could; escaping the
	// first character keeps it a paragraph.
	if len(out) > 0 && strings.IndexByte("-+=", out[0]) >= 0 {
		out = "\\" + out
	}
	// "1." or "1)" at the start of a line would open an ordered list.
	if m := orderedStart.FindStringSubmatchIndex(out); m != nil {
		p := m[2] - 1 // the '.' or ')'
		out = out[:p] + "\\" + out[p:]
	}
	return out
}

// templatePercent reports whether s[i] is the '%' of a "{%" or "%}".
// Escaped braces already keep "{{" and "}}" apart; escaping this '%' too
// means no template engine a Markdown file may pass through (Liquid in
// Jekyll, Jinja, Hugo) sees a tag in untrusted text. A lone "98%" is left
// as it is.
func templatePercent(s string, i int) bool {
	return s[i] == '%' && ((i > 0 && s[i-1] == '{') || (i+1 < len(s) && s[i+1] == '}'))
}

// inlineText is what escapeInline(s) reads as once rendered: one line,
// control characters made visible, no surrounding space (leading spaces
// could make an indented code block; they carry no meaning in inline
// text).
func inlineText(s string) string {
	s = lineBreaks.Replace(s)
	return strings.TrimSpace(cleanControl(s))
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// defuseAutolinks stops GFM's autolink extension from turning URLs and
// e-mail addresses in untrusted text into links: an escaped ':' , '.' or
// '@' still reads the same but no longer matches.
func defuseAutolinks(s string) string {
	s = strings.ReplaceAll(s, "://", "\\://")
	s = strings.ReplaceAll(s, "@", "\\@")
	var b strings.Builder
	lower := strings.ToLower(s)
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(lower[i:], "www.") {
			b.WriteString(s[i : i+3])
			b.WriteString("\\.")
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			if cur > best {
				best = cur
			}
		} else {
			cur = 0
		}
	}
	return best
}

// fence returns a backtick fence longer than any backtick run in text, so
// the text cannot close the block early.
func fence(text string) string {
	n := longestRun(text, '`') + 1
	if n < 3 {
		n = 3
	}
	return strings.Repeat("`", n)
}

// writeFenced writes text as a fenced code block with info string info.
func writeFenced(b *strings.Builder, info, text string) {
	text = cleanControl(strings.ReplaceAll(text, "\r\n", "\n"))
	text = strings.TrimRight(text, "\n")
	f := fence(text)
	b.WriteString(f)
	b.WriteString(info)
	b.WriteByte('\n')
	b.WriteString(text)
	b.WriteByte('\n')
	b.WriteString(f)
	b.WriteString("\n\n")
}

// Limits for evidence. Long evidence is cut with a visible note.
const (
	maxEvidenceLines = 40
	maxLineChars     = 600
	maxEvidenceItems = 8
	maxSubjects      = 12
	timelineHead     = 15
	timelineTail     = 45
)

// trimmed is evidence text after trimming, with what was cut.
type trimmed struct {
	Text       string
	TotalLines int
	ShownLines int
	CutLines   bool // a line was longer than maxLineChars
}

// trimEvidence keeps the last maxEvidenceLines lines (the end of a log or a
// traceback is where the error is) and cuts very long lines in the middle.
func trimEvidence(text string) trimmed {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	lines := strings.Split(text, "\n")
	t := trimmed{TotalLines: len(lines)}
	if len(lines) > maxEvidenceLines {
		lines = lines[len(lines)-maxEvidenceLines:]
	}
	t.ShownLines = len(lines)
	for i, l := range lines {
		if utf8.RuneCountInString(l) > maxLineChars {
			r := []rune(l)
			half := maxLineChars / 2
			lines[i] = string(r[:half]) + " … " + string(r[len(r)-half:])
			t.CutLines = true
		}
	}
	t.Text = strings.Join(lines, "\n")
	return t
}

// TimeLayout is the one time format of every report, in UTC, for both
// languages: unambiguous and sortable. The site's lists use MinuteLayout,
// where seconds are noise.
const (
	TimeLayout   = "2006-01-02 15:04:05 UTC"
	MinuteLayout = "2006-01-02 15:04"
)

// FormatTime shows an RFC 3339 time (fractional seconds allowed) in UTC
// with layout. Unparseable input is shown as it is (escaped by the
// caller) rather than dropped; "" stays "".
func FormatTime(s, layout string) string {
	if s == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(layout)
}

// formatTime is FormatTime with the reports' layout.
func formatTime(s string) string { return FormatTime(s, TimeLayout) }
