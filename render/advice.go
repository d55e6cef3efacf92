package render

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// A rule's remediation is written for every case the rule covers. A report
// knows the case: the exit code, the pod, the node. adviceMarkdown makes
// the text specific where rule authors wrote it so that it can be:
//
//   - a bullet that starts with exit codes ("- 127/126: ...") applies only
//     to those codes, and is left out when the finding's code is known and
//     another one;
//   - a bullet that starts with a quoted phrase ("- \"were unschedulable\":
//     ...") applies only when that phrase is in the evidence, the message
//     or a parameter; when none of a remediation's quoted bullets match,
//     all are kept;
//   - the placeholders <pod>, <container>, <node>, <namespace> and <job>
//     inside code spans are filled with the finding's objects, when their
//     names are plain Kubernetes names.

var (
	codeBullet   = regexp.MustCompile(`^- ((?:\d{1,3})(?:\s*/\s*\d{1,3})*)\s*[:：]`)
	quotedBullet = regexp.MustCompile(`^- ["“]([^"”]+)["”]\s*[:：]`)
	// plainName is what may replace a placeholder inside a code span: a
	// DNS-1123 name, which cannot end the span or carry markup.
	plainName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
)

// adviceMarkdown returns the finding's remediation in lang, fitted to the
// finding (see above) and normalised so it cannot break the document.
func adviceMarkdown(j *report.Job, f *report.Finding, lang string) string {
	rem := strings.TrimSpace(f.Remediation.In(lang))
	if rem == "" {
		return ""
	}
	rem = filterBullets(rem, exitCodes(j, f), findingText(f))
	rem = fillPlaceholders(rem, placeholderValues(j, f))
	if NormalizeLang(lang) != "en" {
		rem = quotesToCode(rem)
	}
	return remediationMarkdown(rem)
}

// quotedEnglish is English in double quotes inside a translated text: a
// message or log line the rule quotes, such as "No route to host".
var quotedEnglish = regexp.MustCompile(`["“]([ -!#-~]*[A-Za-z][ -!#-~]*)["”]`)

// quotesToCode turns English quoted in a translated remediation into code
// spans, outside the code spans already there: it is text from logs, to
// be read as it is, not prose left untranslated.
func quotesToCode(rem string) string {
	var b strings.Builder
	for i, part := range strings.Split(rem, "`") {
		if i > 0 {
			b.WriteByte('`')
		}
		if i%2 == 1 {
			b.WriteString(part) // inside a code span
			continue
		}
		b.WriteString(quotedEnglish.ReplaceAllStringFunc(part, func(q string) string {
			inner := quotedEnglish.FindStringSubmatch(q)[1]
			return codeSpan(inner)
		}))
	}
	return b.String()
}

// findingText is everything a quoted bullet may match against.
func findingText(f *report.Finding) string {
	var b strings.Builder
	b.WriteString(f.Message.En)
	for _, v := range f.Params {
		if s, ok := v.(string); ok {
			b.WriteString("\n" + s)
		}
	}
	for _, e := range f.Evidence {
		b.WriteString("\n" + e.Text)
	}
	return strings.ToLower(b.String())
}

// filterBullets drops the bullets (with their continuation lines) whose
// condition does not hold.
func filterBullets(rem string, codes []int, text string) string {
	lines := strings.Split(rem, "\n")
	type bullet struct {
		start, end int
		codes      []int
		quoted     string
	}
	var bs []bullet
	for i, l := range lines {
		if strings.HasPrefix(l, "- ") {
			b := bullet{start: i, end: i + 1}
			if m := codeBullet.FindStringSubmatch(l); m != nil {
				for _, c := range strings.Split(m[1], "/") {
					n, _ := strconv.Atoi(strings.TrimSpace(c))
					b.codes = append(b.codes, n)
				}
			} else if m := quotedBullet.FindStringSubmatch(l); m != nil {
				b.quoted = strings.ToLower(m[1])
			}
			bs = append(bs, b)
			continue
		}
		if len(bs) > 0 && bs[len(bs)-1].end == i && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			bs[len(bs)-1].end = i + 1
		}
	}
	anyQuoted := false
	for _, b := range bs {
		if b.quoted != "" && strings.Contains(text, b.quoted) {
			anyQuoted = true
		}
	}
	drop := make([]bool, len(lines))
	for _, b := range bs {
		keep := true
		switch {
		case len(b.codes) > 0 && len(codes) > 0:
			keep = slices.ContainsFunc(b.codes, func(c int) bool { return slices.Contains(codes, c) })
		case b.quoted != "" && anyQuoted:
			keep = strings.Contains(text, b.quoted)
		}
		if !keep {
			for i := b.start; i < b.end; i++ {
				drop[i] = true
			}
		}
	}
	var out []string
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// placeholderValues are the names that fill <pod>, <container>, <node>,
// <namespace> and <job>: the first pod and its container, every node
// (kubectl cordon takes several), the job's namespace and name.
func placeholderValues(j *report.Job, f *report.Finding) map[string]string {
	v := map[string]string{}
	set := func(k, val string) {
		if plainName.MatchString(val) {
			v[k] = val
		}
	}
	if pods := podSubjects(f); len(pods) > 0 {
		set("pod", pods[0].Name)
		set("container", pods[0].Container)
	}
	var nodes []string
	for _, n := range findingNodes(j, f) {
		if plainName.MatchString(n) {
			nodes = append(nodes, n)
		}
	}
	if len(nodes) > 0 && len(nodes) <= 8 {
		v["node"] = strings.Join(nodes, " ")
	}
	set("namespace", j.Namespace)
	set("job", j.Name)
	return v
}

// fillPlaceholders replaces <name> inside code spans only: elsewhere the
// angle brackets may be prose.
func fillPlaceholders(rem string, values map[string]string) string {
	if len(values) == 0 || !strings.Contains(rem, "`") {
		return rem
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(rem); i++ {
		c := rem[i]
		if c == '`' {
			in = !in
			b.WriteByte(c)
			continue
		}
		if in && c == '<' {
			if end := strings.IndexByte(rem[i:], '>'); end > 0 {
				if val, ok := values[rem[i+1:i+end]]; ok {
					b.WriteString(val)
					i += end
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// remediationMarkdown returns rule-authored remediation text. It is
// Markdown written by rule authors (lists, code spans), so it is kept as
// Markdown; raw HTML in it is dropped by the HTML renderer and by GitHub.
// Lines are normalised so the text cannot break the surrounding document:
// headings are demoted to bold and a stray fence is closed.
func remediationMarkdown(s string) string {
	s = cleanControl(strings.ReplaceAll(s, "\r\n", "\n"))
	lines := strings.Split(s, "\n")
	open := ""
	for i, l := range lines {
		trim := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			if open == "" {
				open = trim[:3]
			} else if strings.HasPrefix(trim, open) {
				open = ""
			}
			continue
		}
		if open == "" && strings.HasPrefix(trim, "#") {
			lines[i] = "**" + strings.TrimSpace(strings.TrimLeft(trim, "#")) + "**"
		}
	}
	out := strings.TrimSpace(strings.Join(lines, "\n"))
	if open != "" {
		out += "\n" + open
	}
	return out
}
