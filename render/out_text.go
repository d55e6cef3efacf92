package render

import (
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
)

func init() {
	register(&Format{Name: "text", Summary: "a summary per job for the terminal, then the table", Out: textOut{}})
}

// textOut is what `traindoc diagnose` prints by default: per job the same
// verdict a report opens with (what, where, since when, how it ended, who
// acts, how sure), the primary evidence and the first thing to do, then
// one table row per job. The words are the reports' own.
type textOut struct{}

// maxTextLine bounds a quoted line in the terminal.
const maxTextLine = 220

func (textOut) Write(w io.Writer, rep *report.Report, o Options) error {
	lang := NormalizeLang(o.Lang)
	var b strings.Builder
	for i := range rep.Jobs {
		writeTextJob(&b, &rep.Jobs[i], lang)
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return tableOut{}.Write(w, rep, o)
}

func writeTextJob(b *strings.Builder, j *report.Job, lang string) {
	state := JobState(j)
	b.WriteString(clean(jobHeading(j)) + "\n")
	headline := ""
	if j.Primary != nil {
		headline = j.Primary.Title.In(lang)
	} else if state == StateHealthy {
		headline = T(lang, "verdict.no_findings")
	}
	b.WriteString("  " + clean(headlineText(state, headline, lang)) + "\n")

	var rows [][]string
	row := func(label string, p phrase) {
		if !p.empty() {
			rows = append(rows, []string{"  " + label + T(lang, "punct.colon"), clean(p.plain())})
		}
	}
	add := func(key string, p phrase) { row(T(lang, key), p) }
	addText := func(key string, p phrase) { row(tt(lang, key), p) }
	if state != StateHealthy {
		add("verdict.where", where(j, j.Primary, lang))
		add("verdict.since", since(j, j.Primary, lang))
		add("verdict.exit", exitOf(j, j.Primary, lang))
		add("verdict.act", words(OwnerLabel(lang, ownerOf(j.Primary))))
	}
	if p := j.Progress; p != nil && state != StateUnhealthy {
		add("verdict.progress", progressLine(p, lang))
	}
	level, why := Confidence(j)
	add("verdict.confidence", fill(lang, "confidence.line", "level", Term(lang, "confidence."+level), "why", T(lang, why)))
	if state == StateUnhealthy {
		key := "verdict.restart_no"
		if j.Retryable {
			key = "verdict.restart_yes"
		}
		add("verdict.restart", words(T(lang, key)))
	}
	for _, f := range consequences(j) {
		add("verdict.then", subjectClause(j, f, lang))
	}
	addText("job", jobFacts(j, lang))
	if p := j.Primary; p != nil && state != StateHealthy {
		for k, e := range p.Evidence {
			if k == 2 {
				add("finding.evidence", fill(lang, "evidence.more", "n", strconv.Itoa(len(p.Evidence)-2)))
				break
			}
			add("finding.evidence", evidenceHeader(e, lang))
			if t := strings.TrimSpace(e.Text); t != "" {
				lines := strings.Split(t, "\n")
				rows = append(rows, []string{"", truncCells(clean(lines[len(lines)-1]), maxTextLine)})
			}
		}
		if first := firstAdvice(j, p, lang); first != "" {
			add("finding.remediation", words(first))
		}
	}
	g := groupFindings(j)
	for _, f := range g.Others {
		addText("also", words(f.Title.In(lang)+" ("+SeverityLabel(lang, f.Severity)+")"))
	}
	for _, f := range g.Risks {
		add("verdict.advisories", words(f.Title.In(lang)))
	}
	for _, f := range g.Acknowledged {
		add("finding.known", words(f.Title.In(lang)))
	}
	for _, s := range j.Warnings {
		addText("warning", words(s))
	}
	if e := j.Explanation; e != nil {
		switch {
		case e.Error != "":
			add("explain.title", words(e.Error))
		case e.Analysis != "":
			add("explain.title", words(strings.Fields(e.Analysis)[0]+"…"))
		}
		if e.Missing != "" {
			add("explain.title", fill(lang, "explain.missing", "reason", quote(e.Missing)))
		}
	}
	b.WriteString(table(rows))
}

// jobFacts is the job's phase, with the kind's own status word named, and
// when it was created.
func jobFacts(j *report.Job, lang string) phrase {
	var parts []phrase
	if j.Phase != "" {
		p := fill(lang, "job.phase", "phase", quote(j.Phase))
		if j.KindPhase != "" && j.KindPhase != j.Phase {
			p = fill(lang, "job.phase_kind", "phase", quote(j.Phase), "kind", quote(j.Kind), "status", quote(j.KindPhase))
		}
		parts = append(parts, p)
	}
	if j.CreatedAt != "" {
		parts = append(parts, fill(lang, "job.created", "time", formatTime(j.CreatedAt)))
	}
	return join(parts, " · ")
}

// firstAdvice is the first line of the fitted remediation, as plain text.
func firstAdvice(j *report.Job, f *report.Finding, lang string) string {
	rem := adviceMarkdown(j, f, lang)
	for _, l := range strings.Split(rem, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		if l != "" {
			return truncCells(strings.ReplaceAll(l, "`", ""), maxTextLine)
		}
	}
	return ""
}

// clean keeps terminal control characters from untrusted text out of the
// output: an escape sequence in a log line must not recolour or move the
// reader's terminal.
func clean(s string) string {
	s = cleanControl(s)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

// tt is a string of the terminal's own "text" catalogue.
func tt(lang, key string) string { return i18n.T(lang, "text."+key) }
