package explain

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
)

// errorInfo lists the findings, primary first, as the rules wrote them.
func errorInfo(d *Data, lang string) string {
	var b strings.Builder
	if d.Summary != "" {
		fmt.Fprintf(&b, "%s: %s\n\n", label(lang, "summary"), d.Summary)
	}
	if len(d.Findings) == 0 {
		b.WriteString(label(lang, "none"))
		return strings.TrimSpace(b.String())
	}
	others := false
	for i, f := range d.Findings {
		switch {
		case i == 0 && f.Primary:
			fmt.Fprintf(&b, "%s:\n", label(lang, "primary"))
		case !others:
			fmt.Fprintf(&b, "%s:\n", label(lang, "others"))
			others = true
		}
		fmt.Fprintf(&b, "- [%s] %s: %s", f.Severity, f.Category, f.Title)
		if f.CausedBy != "" {
			b.WriteString(" (" + labelN(lang, "consequence", "id", f.CausedBy) + ")")
		}
		fmt.Fprintf(&b, "\n  id %s, rule %s, layer %s, owner %s", f.ID, f.Rule, f.Layer, f.Owner)
		if f.FirstSeen != "" {
			b.WriteString(", first seen " + f.FirstSeen)
		}
		b.WriteString("\n")
		if f.Message != "" {
			b.WriteString("  " + oneLine(f.Message) + "\n")
		}
		if len(f.Subjects) > 0 {
			subs := f.Subjects
			more := ""
			if len(subs) > maxSubjectsListed {
				more = ", " + labelN(lang, "more", "n", strconv.Itoa(len(subs)-maxSubjectsListed))
				subs = subs[:maxSubjectsListed]
			}
			fmt.Fprintf(&b, "  %s: %s%s\n", label(lang, "affected"), strings.Join(subs, ", "), more)
		}
		if f.Remediation != "" {
			fmt.Fprintf(&b, "  %s: %s\n", label(lang, "remediation"), oneLine(f.Remediation))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// eventInfo renders the timeline as one fenced block. Entries that say the
// same thing about different objects (64 pods created, 63 containers exiting
// with code 1 at once) become one line at the time of the first, so a large
// job does not drown the few entries that matter. When it is still too long, warnings
// are kept before normal entries, and the kept lines stay in time order.
func eventInfo(tl []report.Entry, lang string) string {
	if len(tl) == 0 {
		return label(lang, "noEvents")
	}
	type group struct {
		first, last report.Entry
		key         string
		count       int
		objects     []string
	}
	var groups []group
	byKey := map[string]int{}
	for _, e := range tl {
		key := e.Kind + "\x00" + strconv.FormatBool(e.Warning) + "\x00" + indexedName.ReplaceAllString(e.Text, "<name>")
		// Warnings merge only with the entry just before, so the first
		// failure keeps its own line and time; normal entries merge with
		// any earlier one.
		if i, ok := byKey[key]; ok && (!e.Warning || i == len(groups)-1) {
			g := &groups[i]
			g.last = e
			g.count++
			if !slices.Contains(g.objects, e.Object) {
				g.objects = append(g.objects, e.Object)
			}
			continue
		}
		byKey[key] = len(groups)
		groups = append(groups, group{first: e, last: e, key: key, count: 1, objects: []string{e.Object}})
	}
	lines := make([]string, len(groups))
	for i, g := range groups {
		w := ""
		if g.first.Warning {
			w = " WARNING"
		}
		when, objs, text := g.first.Time, g.first.Object, oneLine(g.first.Text)
		if g.last.Time != g.first.Time {
			when += ".." + g.last.Time
		}
		if n := len(g.objects); n > 1 {
			shown := g.objects[:min(n, 3)]
			objs = strings.Join(shown, ", ")
			if n > len(shown) {
				objs += fmt.Sprintf(" and %d more", n-len(shown))
			}
		} else if g.count > 1 {
			text += fmt.Sprintf(" (and %d similar)", g.count-1)
		}
		lines[i] = redact.String(fmt.Sprintf("%s [%s%s] %s: %s", when, g.first.Kind, w, objs, text))
	}
	keep := make([]bool, len(groups))
	n, size := 0, 0
	for pass := 0; pass < 2; pass++ {
		for i, g := range groups {
			if keep[i] || (pass == 0 && !g.first.Warning) || n == maxEventEntries || size+len(lines[i]) > maxEventChars {
				continue
			}
			keep[i] = true
			n++
			size += len(lines[i]) + 1
		}
	}
	var out []string
	omitted := 0
	for i, g := range groups {
		if keep[i] {
			out = append(out, lines[i])
		} else {
			omitted += g.count
		}
	}
	if omitted > 0 {
		out = append(out, fmt.Sprintf("(%d more entries omitted)", omitted))
	}
	return Fence(strings.Join(out, "\n"))
}

// indexedName matches object names that end in an index (pod
// llm70b-pt-worker-17), so that "Created pod: x-worker-0" and "... x-worker-1"
// group together while "exit code 1" and "exit code 137" do not.
var indexedName = regexp.MustCompile(`\b[a-z0-9]+(?:[-.][a-z0-9]+)*-\d+\b`)

// logInfo renders the log evidence of the findings, primary first, each
// excerpt under a header line naming its source, then fenced.
func logInfo(d *Data, lang string) string {
	type key struct {
		file string
		line int
		text string
	}
	seen := map[key]bool{}
	var b strings.Builder
	omitted := 0
	for _, f := range d.Findings {
		n := 0
		for _, e := range f.Evidence {
			if e.Kind != "log" || strings.TrimSpace(e.Text) == "" {
				continue
			}
			k := key{e.File, e.Line, e.Text}
			if seen[k] {
				continue
			}
			seen[k] = true
			if n == maxEvidencePerFind || (n == maxEvidencePerConsequence && !f.Primary) {
				omitted++
				continue
			}
			block := excerpt(e, f, lang)
			if b.Len()+len(block) > maxLogChars {
				omitted++
				continue
			}
			b.WriteString(block)
			n++
		}
	}
	if b.Len() == 0 {
		return label(lang, "noLogs")
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "(%s)\n", labelN(lang, "omitted", "n", strconv.Itoa(omitted)))
	}
	return strings.TrimRight(b.String(), "\n")
}

func excerpt(e Evidence, f Finding, lang string) string {
	var h strings.Builder
	h.WriteString(e.Source)
	if e.File != "" {
		h.WriteString(" " + e.File)
		if e.Line > 0 {
			h.WriteString(":" + strconv.Itoa(e.Line))
		}
	}
	fmt.Fprintf(&h, " (%s %s", label(lang, "finding"), f.Category)
	if e.Count > 1 {
		h.WriteString(", " + labelN(lang, "seen", "n", strconv.Itoa(e.Count)))
	}
	h.WriteString(")")
	lines := strings.Split(strings.TrimRight(e.Text, "\n"), "\n")
	trimmed := false
	if len(lines) > maxExcerptLines {
		lines = lines[len(lines)-maxExcerptLines:]
		trimmed = true
	}
	text := strings.Join(lines, "\n")
	if len(text) > maxExcerptChars {
		text = text[len(text)-maxExcerptChars:]
		if i := strings.IndexByte(text, '\n'); i >= 0 && i < len(text)-1 {
			text = text[i+1:]
		} else {
			// One huge line: start on a rune boundary.
			for len(text) > 0 && !utf8.RuneStart(text[0]) {
				text = text[1:]
			}
		}
		trimmed = true
	}
	if trimmed {
		h.WriteString(" " + label(lang, "trimmed"))
	}
	// The heading names a pod and a file, outside the fence: one line.
	return oneLine(h.String()) + ":\n" + Fence(text) + "\n\n"
}

// Fence wraps untrusted text in a Markdown code fence longer than any run of
// backticks inside it, so nothing in the text can close the fence and be
// read as prompt structure.
func Fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	n := 3
	if longest >= n {
		n = longest + 1
	}
	f := strings.Repeat("`", n)
	return f + "text\n" + strings.TrimRight(s, "\n") + "\n" + f
}
