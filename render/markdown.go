package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// The Markdown is GitHub-flavoured and must read well as plain text on
// GitHub and GitLab, which support neither heading attributes nor raw HTML.
// The HTML renderer recognises a few plain-Markdown conventions instead:
//
//   - a heading ending in a link "[¶](#f-ID)" takes the anchor f-ID;
//   - bold text starting with a severity or verdict marker becomes a
//     coloured badge.
//
// Untrusted text never produces links or bold text (it is escaped), so it
// cannot forge either convention.

// Markers that start badges. They are also what a reader of the plain
// Markdown sees, so they must make sense without colour.
var severityMarker = map[string]string{
	report.SeverityCritical: "🔴",
	report.SeverityError:    "🟠",
	report.SeverityWarning:  "🟡",
	report.SeverityInfo:     "🔵",
}

const (
	markerHealthy   = "✅"
	markerUnhealthy = "❌"
	markerWarning   = "⚠️"
	permalinkText   = "¶"
)

// FindingAnchor is the permalink anchor of a finding.
func FindingAnchor(id string) string { return "f-" + anchorSafe(id) }

// anchorSafe keeps an identifier usable as an HTML id and URL fragment
// without escaping.
func anchorSafe(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// JobMarkdown renders one job as a standalone Markdown document in lang.
func JobMarkdown(job *report.Job, rep *report.Report, lang string) []byte {
	return jobMarkdown(job, rep, lang, "")
}

func jobMarkdown(job *report.Job, rep *report.Report, lang, version string) []byte {
	lang = NormalizeLang(lang)
	var b strings.Builder
	w := &mdWriter{b: &b, lang: lang}
	w.job(job, 1)
	w.footer(rep, version)
	return []byte(b.String())
}

// ReportMarkdown renders every job of rep into one document: a title, an
// index of the jobs, then each job.
func ReportMarkdown(rep *report.Report, lang, version string) []byte {
	lang = NormalizeLang(lang)
	var b strings.Builder
	w := &mdWriter{b: &b, lang: lang}
	if len(rep.Jobs) == 1 && len(rep.Warnings) == 0 {
		w.job(&rep.Jobs[0], 1)
		w.footer(rep, version)
		return []byte(b.String())
	}
	fmt.Fprintf(&b, "# %s\n\n", escapeInline(T(lang, "report.title")))
	if rep.Source != "" {
		fmt.Fprintf(&b, "%s %s\n\n", w.label("report.source"), escapeInline(rep.Source))
	}
	w.warnings(rep.Warnings)
	if len(rep.Jobs) == 0 {
		fmt.Fprintf(&b, "%s\n\n", escapeInline(T(lang, "report.no_jobs")))
	} else {
		w.index(rep.Jobs)
	}
	for i := range rep.Jobs {
		b.WriteString("---\n\n")
		w.job(&rep.Jobs[i], 2)
	}
	w.footer(rep, version)
	return []byte(b.String())
}

type mdWriter struct {
	b    *strings.Builder
	lang string
}

func (w *mdWriter) t(key string) string { return escapeInline(T(w.lang, key)) }

// label is a bold "Label:" with the language's colon.
func (w *mdWriter) label(key string) string {
	return "**" + w.t(key) + escapeInline(T(w.lang, "punct.colon")) + "**"
}

// field is "Label: value" inside a line of facts.
func (w *mdWriter) field(key, value string) string {
	return w.t(key) + escapeInline(T(w.lang, "punct.colon")) + " " + value
}

func (w *mdWriter) printf(format string, args ...any) { fmt.Fprintf(w.b, format, args...) }

func heading(level int) string {
	if level > 6 {
		level = 6
	}
	return strings.Repeat("#", level)
}

// jobHeading is the plain text of a job's heading; the index links to its
// slug.
func jobHeading(job *report.Job) string {
	return job.Kind + " " + job.Namespace + "/" + job.Name
}

// headingSlug is the id the HTML renderer gives a heading written as
// escapeInline(text) (see headingIDs.Generate), so that a link to it
// leads somewhere whatever the text holds: line breaks, tabs, or nothing
// a slug keeps.
func headingSlug(text string) string {
	if s := slugify(inlineText(text)); s != "" {
		return s
	}
	return "section"
}

func (w *mdWriter) warnings(ws []string) {
	if len(ws) == 0 {
		return
	}
	w.printf("**%s %s**\n\n", markerWarning, w.t("report.warnings"))
	for _, s := range ws {
		w.printf("- %s\n", escapeInline(s))
	}
	w.printf("\n")
}

func (w *mdWriter) index(jobs []report.Job) {
	w.printf("## %s\n\n", w.t("report.index"))
	w.printf("| %s | %s | %s | %s |\n| --- | --- | --- | --- |\n",
		w.t("job.title.short"), w.t("verdict.label"), w.t("finding.primary"), w.t("finding.severity"))
	for i := range jobs {
		j := &jobs[i]
		cause := ""
		sev := ""
		if j.Primary != nil && !j.Healthy {
			cause = escapeInline(j.Primary.Title.In(w.lang))
			sev = w.severityBadge(j.Primary.Severity)
		}
		w.printf("| [%s](#%s) | %s | %s | %s |\n",
			escapeInline(j.Namespace+"/"+j.Name), headingSlug(jobHeading(j)),
			w.verdictBadge(j.Healthy), cause, sev)
	}
	w.printf("\n")
}

func (w *mdWriter) severityBadge(sev string) string {
	m, ok := severityMarker[sev]
	if !ok {
		return escapeInline(sev)
	}
	return fmt.Sprintf("**%s %s**", m, w.t("severity."+sev))
}

func (w *mdWriter) verdictBadge(healthy bool) string {
	if healthy {
		return fmt.Sprintf("**%s %s**", markerHealthy, w.t("verdict.healthy"))
	}
	return fmt.Sprintf("**%s %s**", markerUnhealthy, w.t("verdict.unhealthy"))
}

func (w *mdWriter) ownerText(owner string) string {
	switch owner {
	case report.OwnerUser, report.OwnerPlatform, report.OwnerHardware:
		return w.t("owner." + owner)
	}
	return w.t("owner.unknown")
}

// job writes one job with its title at heading level lvl.
func (w *mdWriter) job(j *report.Job, lvl int) {
	w.printf("%s %s\n\n", heading(lvl), escapeInline(jobHeading(j)))
	w.verdict(j)
	w.facts(j)
	if j.Primary != nil && !(j.Healthy && j.Primary.Category == report.CategoryHealthy) {
		w.finding(j, j.Primary, lvl+1, true)
	}
	w.otherFindings(j, lvl+1)
	w.explanation(j.Explanation, lvl+1)
	w.replicas(j.Replicas, lvl+1)
	w.timeline(j.Timeline, lvl+1)
	w.progress(j.Progress, lvl+1)
}

// verdict is the ten-second line: healthy or not, the cause in one
// sentence, who acts.
func (w *mdWriter) verdict(j *report.Job) {
	summary := strings.TrimSpace(j.Summary.In(w.lang))
	if summary == "" && j.Primary != nil {
		summary = strings.TrimSpace(j.Primary.Message.In(w.lang))
		if summary == "" {
			summary = j.Primary.Title.In(w.lang)
		}
	}
	if summary == "" && j.Healthy {
		summary = T(w.lang, "verdict.no_findings")
	}
	w.printf("%s", w.verdictBadge(j.Healthy))
	if summary != "" {
		w.printf(" — %s", escapeInline(summary))
	}
	if !j.Healthy {
		owner := ""
		if j.Primary != nil {
			owner = j.Primary.Owner
		}
		w.printf(" · %s %s", w.label("verdict.act"), w.ownerText(owner))
	}
	w.printf("\n\n")
}

func (w *mdWriter) facts(j *report.Job) {
	phase := j.Phase
	if j.KindPhase != "" && j.KindPhase != j.Phase {
		phase += " (" + j.KindPhase + ")"
	}
	if phase != "" {
		w.printf("- %s %s\n", w.label("job.phase"), escapeInline(phase))
	}
	if j.CreatedAt != "" {
		w.printf("- %s %s\n", w.label("job.created"), escapeInline(formatTime(j.CreatedAt)))
	}
	if j.Cluster != "" {
		w.printf("- %s %s\n", w.label("job.cluster"), escapeInline(j.Cluster))
	}
	if j.CollectedAt != "" {
		w.printf("- %s %s\n", w.label("job.collected"), escapeInline(formatTime(j.CollectedAt)))
	}
	if len(j.Nodes) > 0 {
		w.printf("- %s %s\n", w.label("job.nodes"), escapeInline(strings.Join(j.Nodes, ", ")))
	}
	for _, n := range j.Notes {
		w.printf("- %s %s\n", w.label("job.notes"), escapeInline(n))
	}
	w.printf("\n")
	if len(j.Warnings) > 0 {
		w.printf("**%s %s**\n\n", markerWarning, w.t("job.warnings"))
		for _, s := range j.Warnings {
			w.printf("- %s\n", escapeInline(s))
		}
		w.printf("\n")
	}
}

func findingByID(j *report.Job, id string) *report.Finding {
	for i := range j.Findings {
		if j.Findings[i].ID == id {
			return &j.Findings[i]
		}
	}
	if j.Primary != nil && j.Primary.ID == id {
		return j.Primary
	}
	return nil
}

func (w *mdWriter) otherFindings(j *report.Job, lvl int) {
	var others []*report.Finding
	for i := range j.Findings {
		f := &j.Findings[i]
		if j.Primary != nil && f.ID == j.Primary.ID {
			continue
		}
		others = append(others, f)
	}
	if len(others) == 0 {
		return
	}
	w.printf("%s %s\n\n", heading(lvl), w.t("finding.others"))
	for _, f := range others {
		w.finding(j, f, lvl+1, false)
	}
}

func (w *mdWriter) finding(j *report.Job, f *report.Finding, lvl int, primary bool) {
	title := escapeInline(f.Title.In(w.lang))
	if title == "" {
		title = escapeInline(f.Rule)
	}
	marker := severityMarker[f.Severity]
	if marker != "" {
		marker += " "
	}
	if primary {
		w.printf("%s %s%s%s %s [%s](#%s)\n\n", heading(lvl), marker, w.t("finding.primary"), escapeInline(T(w.lang, "punct.colon")), title, permalinkText, FindingAnchor(f.ID))
	} else {
		w.printf("%s %s%s [%s](#%s)\n\n", heading(lvl), marker, title, permalinkText, FindingAnchor(f.ID))
	}

	// One line of facts, most useful first.
	parts := []string{w.severityBadge(f.Severity)}
	if f.Consequence || f.CausedBy != "" {
		parts = append(parts, w.consequenceOf(j, f))
	}
	parts = append(parts, w.field("finding.rule", codeSpan(f.Rule)))
	if f.Category != "" {
		parts = append(parts, w.field("finding.category", codeSpan(f.Category)))
	}
	if f.Layer != "" {
		parts = append(parts, w.field("finding.layer", codeSpan(f.Layer)))
	}
	parts = append(parts, w.field("finding.owner", w.ownerText(f.Owner)))
	if f.FirstSeen != "" {
		parts = append(parts, w.field("finding.first_seen", escapeInline(formatTime(f.FirstSeen))))
	}
	w.printf("%s\n\n", strings.Join(parts, " · "))

	if msg := strings.TrimSpace(f.Message.In(w.lang)); msg != "" {
		w.printf("%s\n\n", escapeInline(msg))
	}
	w.subjects(f.Subjects)
	w.evidence(f.Evidence, lvl+1)
	if rem := strings.TrimSpace(f.Remediation.In(w.lang)); rem != "" {
		w.printf("%s %s\n\n", heading(lvl+1), w.t("finding.remediation"))
		w.printf("%s\n\n", remediationMarkdown(rem))
	}
}

func (w *mdWriter) consequenceOf(j *report.Job, f *report.Finding) string {
	if f.CausedBy == "" {
		return "*" + escapeInline(Tf(w.lang, "finding.consequence", "id", "?")) + "*"
	}
	label := f.CausedBy
	if c := findingByID(j, f.CausedBy); c != nil && c.Title.In(w.lang) != "" {
		label = c.Title.In(w.lang)
	}
	// The translated sentence carries the placeholder; the link is put in
	// after escaping so that its brackets stay syntax.
	sentence := escapeInline(T(w.lang, "finding.consequence"))
	link := fmt.Sprintf("[%s](#%s)", escapeInline(label), FindingAnchor(f.CausedBy))
	return "*" + strings.ReplaceAll(sentence, "\\{id\\}", link) + "*"
}

func (w *mdWriter) subjects(subs []report.Subject) {
	if len(subs) == 0 {
		return
	}
	var items []string
	for i, s := range subs {
		if i == maxSubjects {
			items = append(items, escapeInline(Tf(w.lang, "finding.more_subjects", "n", strconv.Itoa(len(subs)-maxSubjects))))
			break
		}
		item := escapeInline(s.Kind + " " + s.Name)
		var extra []string
		if s.Container != "" {
			extra = append(extra, Tf(w.lang, "subject.container", "name", s.Container))
		}
		if s.Rank != nil {
			extra = append(extra, Tf(w.lang, "subject.rank", "n", strconv.Itoa(*s.Rank)))
		}
		if len(extra) > 0 {
			item += " (" + escapeInline(strings.Join(extra, ", ")) + ")"
		}
		items = append(items, item)
	}
	w.printf("%s %s\n\n", w.label("finding.subjects"), strings.Join(items, ", "))
}

func (w *mdWriter) evidence(evs []report.Evidence, lvl int) {
	if len(evs) == 0 {
		return
	}
	w.printf("%s %s\n\n", heading(lvl), w.t("finding.evidence"))
	for i, e := range evs {
		if i == maxEvidenceItems {
			w.printf("> %s\n\n", escapeInline(Tf(w.lang, "evidence.more", "n", strconv.Itoa(len(evs)-maxEvidenceItems))))
			break
		}
		w.evidenceItem(e)
	}
}

func (w *mdWriter) evidenceItem(e report.Evidence) {
	kind := e.Kind
	switch kind {
	case "event", "log", "field", "condition", "exec":
		kind = T(w.lang, "evidence.kind."+kind)
	}
	parts := []string{"**" + escapeInline(kind) + "**"}
	if e.Object != nil && !strings.Contains(e.Source, e.Object.Name) {
		obj := e.Object.Kind + " "
		if e.Object.Namespace != "" {
			obj += e.Object.Namespace + "/"
		}
		parts = append(parts, escapeInline(obj+e.Object.Name))
	}
	if e.Source != "" {
		parts = append(parts, escapeInline(e.Source))
	}
	if e.Field != "" {
		parts = append(parts, codeSpan(e.Field))
	}
	if e.File != "" {
		loc := codeSpan(e.File)
		if e.Line > 0 {
			loc += " " + escapeInline(Tf(w.lang, "evidence.line", "n", strconv.Itoa(e.Line)))
		}
		parts = append(parts, loc)
	}
	if e.Time != "" {
		parts = append(parts, escapeInline(formatTime(e.Time)))
	}
	if e.Count > 1 {
		parts = append(parts, escapeInline(Tf(w.lang, "evidence.count", "n", strconv.Itoa(e.Count))))
	}
	w.printf("%s\n\n", strings.Join(parts, " · "))
	if strings.TrimSpace(e.Text) == "" {
		return
	}
	t := trimEvidence(e.Text)
	writeFenced(w.b, "text", t.Text)
	if t.ShownLines < t.TotalLines {
		w.printf("> %s\n\n", escapeInline(Tf(w.lang, "evidence.trimmed",
			"shown", strconv.Itoa(t.ShownLines), "total", strconv.Itoa(t.TotalLines))))
	}
	if t.CutLines {
		w.printf("> %s\n\n", escapeInline(Tf(w.lang, "evidence.trimmed_chars", "max", strconv.Itoa(maxLineChars))))
	}
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

// codeSpan renders s as an inline code span whose delimiter is longer than
// any backtick run inside it.
func codeSpan(s string) string {
	s = strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(cleanControl(s)))
	if s == "" {
		return ""
	}
	d := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return d + s + d
}

func (w *mdWriter) replicas(rs []report.Replica, lvl int) {
	w.printf("%s %s\n\n", heading(lvl), w.t("replicas.title"))
	if len(rs) == 0 {
		w.printf("%s\n\n", w.t("replicas.none"))
		return
	}
	cols := []string{"type", "expected", "created", "pending", "running", "succeeded", "failed", "restarts"}
	w.printf("|")
	for _, c := range cols {
		w.printf(" %s |", w.t("replicas."+c))
	}
	w.printf("\n| --- |%s\n", strings.Repeat(" ---: |", len(cols)-1))
	for _, r := range rs {
		w.printf("| %s | %d | %d | %d | %d | %d | %s | %d |\n",
			escapeInline(r.Type), r.Expected, r.Created, r.Pending, r.Running, r.Succeeded,
			emphasiseNonZero(r.Failed), r.Restarts)
	}
	w.printf("\n")
}

func emphasiseNonZero(n int) string {
	if n > 0 {
		return "**" + strconv.Itoa(n) + "**"
	}
	return "0"
}

func (w *mdWriter) timeline(es []report.Entry, lvl int) {
	w.printf("%s %s\n\n", heading(lvl), w.t("timeline.title"))
	if len(es) == 0 {
		w.printf("%s\n\n", w.t("timeline.none"))
		return
	}
	shown := es
	cut := len(es) > timelineHead+timelineTail
	if cut {
		w.printf("> %s\n\n", escapeInline(Tf(w.lang, "timeline.trimmed",
			"shown", strconv.Itoa(timelineHead), "tail", strconv.Itoa(timelineTail), "total", strconv.Itoa(len(es)))))
	}
	w.printf("| %s | %s | %s | %s |\n| --- | --- | --- | --- |\n",
		w.t("timeline.time"), w.t("timeline.kind"), w.t("timeline.object"), w.t("timeline.text"))
	row := func(e report.Entry) {
		kind := e.Kind
		switch kind {
		case "condition", "pod", "container", "event":
			kind = T(w.lang, "timeline.kind."+kind)
		}
		kindCell := escapeInline(kind)
		if e.Warning {
			kindCell = "**" + markerWarning + " " + kindCell + "**"
		}
		text := e.Text
		if w.lang == "zh" && e.TextZh != "" {
			text = e.TextZh
		}
		w.printf("| %s | %s | %s | %s |\n", escapeInline(formatTime(e.Time)), kindCell,
			escapeInline(e.Object), escapeInline(text))
	}
	if cut {
		shown = es[:timelineHead]
	}
	for _, e := range shown {
		row(e)
	}
	if cut {
		w.printf("| … | | | |\n")
		for _, e := range es[len(es)-timelineTail:] {
			row(e)
		}
	}
	w.printf("\n")
}

func (w *mdWriter) progress(p *report.Progress, lvl int) {
	if p == nil {
		return
	}
	var items []string
	add := func(key, val string) { items = append(items, "- "+w.label(key)+" "+val) }
	if p.LastStep != nil {
		s := strconv.FormatInt(*p.LastStep, 10)
		if p.TotalSteps != nil && *p.TotalSteps > 0 {
			s += fmt.Sprintf(" / %d (%.1f%%)", *p.TotalSteps, 100*float64(*p.LastStep)/float64(*p.TotalSteps))
		}
		add("progress.last_step", escapeInline(s))
	}
	if p.LastStepTime != "" {
		add("progress.last_step_time", escapeInline(formatTime(p.LastStepTime)))
	}
	if p.Throughput > 0 {
		add("progress.throughput", escapeInline(formatQuantity(p.Throughput, p.ThroughputUnit)))
	}
	if p.BaselineThroughput > 0 {
		add("progress.baseline", escapeInline(formatQuantity(p.BaselineThroughput, p.ThroughputUnit)))
	}
	if p.LastLoss != nil {
		add("progress.loss", escapeInline(strconv.FormatFloat(*p.LastLoss, 'g', 5, 64)))
	}
	if p.CheckpointStep != nil || p.CheckpointTime != "" {
		var s string
		if p.CheckpointStep != nil {
			s = Tf(w.lang, "progress.checkpoint_at", "step", strconv.FormatInt(*p.CheckpointStep, 10))
		}
		if p.CheckpointTime != "" {
			if s != "" {
				s += " · "
			}
			s += formatTime(p.CheckpointTime)
		}
		add("progress.checkpoint", escapeInline(s))
	}
	if p.GPUUtilization != nil {
		add("progress.gpu", escapeInline(strconv.FormatFloat(*p.GPUUtilization, 'f', 0, 64)+"%"))
	}
	if len(items) == 0 {
		return
	}
	w.printf("%s %s\n\n%s\n\n", heading(lvl), w.t("progress.title"), strings.Join(items, "\n"))
}

func formatQuantity(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if v >= 100 {
		s = strconv.FormatFloat(v, 'f', 0, 64)
	} else if v >= 1 {
		s = strconv.FormatFloat(v, 'f', 1, 64)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

// explanation shows the optional LLM text (see explanation.go).
func (w *mdWriter) explanation(e *report.Explanation, lvl int) {
	w.b.WriteString(explanationMarkdown(e, w.lang, lvl))
}

func (w *mdWriter) footer(rep *report.Report, version string) {
	v := rep.Tool.Version
	if v == "" {
		v = version
	}
	if v == "" {
		v = "dev"
	}
	ts := formatTime(rep.CollectedAt)
	if ts == "" {
		ts = T(w.lang, "progress.unknown")
	}
	w.printf("---\n\n*%s*\n", escapeInline(Tf(w.lang, "report.footer", "time", ts, "version", v)))
}
