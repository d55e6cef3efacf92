package render

import (
	"cmp"
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// The Markdown is GitHub-flavoured and must read well on GitHub and GitLab
// as well as in traindoc's own HTML, which renders this same Markdown:
//
//   - links point only at headings, by the id GitHub and GitLab compute
//     from the heading's text (anchors.go);
//   - the only HTML is <details>/<summary> around what a reader may
//     expand (consequences, more evidence, routine timeline entries), which
//     both forges render and traindoc's HTML renderer allows by an exact
//     whitelist;
//   - text quoted from the cluster is in code spans or fenced blocks, so it
//     is literal and marked as quoted (translate="no" in HTML);
//   - bold text starting with a severity or verdict marker becomes a
//     coloured badge in HTML; a fence with the info string "log hl=N"
//     highlights line N.
//
// Untrusted text never produces links, bold text, HTML or fences (it is
// escaped or fenced), so it cannot forge any of these conventions.

// Markers that start badges. They are also what a reader of the plain
// Markdown sees, so they must make sense without colour.
var severityMarker = map[string]string{
	report.SeverityCritical: "🔴",
	report.SeverityError:    "🟠",
	report.SeverityWarning:  "🟡",
	report.SeverityInfo:     "🔵",
}

var stateMarker = map[string]string{
	StateHealthy:   "✅",
	StateUnhealthy: "❌",
	StateSuspended: "⏸️",
	StateDebug:     "🛠️",
}

const (
	markerWarning  = "⚠️"
	markerAdvisory = "💡"
	markerKnown    = "🔕"
)

// Limits of what a report shows before folding the rest under a
// <details> a reader can open.
const (
	shownEvidence     = 2  // evidence items of a finding shown open
	shownPods         = 12 // pod table rows shown open
	foldTimelineAbove = 12 // a timeline this long collapses routine entries
	maxListedSubjects = 200
	maxFoldedPods     = 500
)

// JobMarkdown renders one job as a standalone Markdown document in lang.
func JobMarkdown(job *report.Job, rep *report.Report, lang string) []byte {
	return jobMarkdown(job, rep, lang, "")
}

func jobMarkdown(job *report.Job, rep *report.Report, lang, version string) []byte {
	w := newMDWriter(lang)
	w.job(job, 0, 1)
	w.footer(rep, version, job.CollectedAt)
	return w.finish()
}

// ReportMarkdown renders every job of rep into one document: a title, an
// index of the jobs, then each job.
func ReportMarkdown(rep *report.Report, lang, version string) []byte {
	w := newMDWriter(lang)
	if len(rep.Jobs) == 1 && len(rep.Warnings) == 0 {
		w.job(&rep.Jobs[0], 0, 1)
		w.footer(rep, version, rep.Jobs[0].CollectedAt)
		return w.finish()
	}
	w.heading(1, T(lang, "report.title"), "")
	if rep.Source != "" {
		w.printf("%s %s\n\n", w.label("report.source"), codeSpan(rep.Source))
	}
	w.warnings("report.warnings", rep.Warnings)
	if len(rep.Jobs) == 0 {
		w.printf("%s\n\n", w.t("report.no_jobs"))
	} else {
		w.index(rep.Jobs)
	}
	for i := range rep.Jobs {
		w.printf("---\n\n")
		w.job(&rep.Jobs[i], i, 2)
	}
	w.footer(rep, version, "")
	return w.finish()
}

type mdWriter struct {
	b       strings.Builder
	lang    string
	anchors *anchors
	// jobIdx is the index of the job being written, for link keys.
	jobIdx int
}

func newMDWriter(lang string) *mdWriter {
	return &mdWriter{lang: NormalizeLang(lang), anchors: newAnchors()}
}

// finish resolves the document's links to its headings.
func (w *mdWriter) finish() []byte { return []byte(w.anchors.resolve(w.b.String())) }

func (w *mdWriter) t(key string) string { return escapeInline(T(w.lang, key)) }

// label is a bold "Label:" with the language's colon.
func (w *mdWriter) label(key string) string {
	return "**" + w.t(key) + escapeInline(T(w.lang, "punct.colon")) + "**"
}

func (w *mdWriter) printf(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

// heading writes a heading of plain text and registers its id under key.
func (w *mdWriter) heading(level int, text, key string) { w.headingPhrase(level, words(text), key) }

// headingPhrase writes a heading whose quoted parts are code spans; the
// id is that of its visible text, as on GitHub.
func (w *mdWriter) headingPhrase(level int, p phrase, key string) {
	if level > 6 {
		level = 6
	}
	w.anchors.heading(p.visible(), key)
	w.printf("%s %s\n\n", strings.Repeat("#", level), p.md())
}

// details writes body inside <details> with a one-line summary. Both
// forges and the HTML renderer need the blank lines around the Markdown
// inside. The summary is raw HTML on GitHub, so it is HTML-escaped text
// with quoted parts in <code>; traindoc's HTML renderer allows exactly
// that shape.
func (w *mdWriter) details(summary phrase, body func()) {
	var b strings.Builder
	for _, s := range summary {
		t := html.EscapeString(inlineText(s.text))
		if s.verbatim {
			b.WriteString("<code>" + t + "</code>")
			continue
		}
		b.WriteString(t)
	}
	w.printf("<details>\n<summary>%s</summary>\n\n", strings.TrimSpace(b.String()))
	body()
	w.printf("</details>\n\n")
}

// jobHeading is the plain text of a job's heading.
func jobHeading(job *report.Job) string {
	return job.Kind + " " + job.Namespace + "/" + job.Name
}

// jobHeadingPhrase is the heading with the job's name quoted: it comes
// from the cluster and is no word to translate.
func jobHeadingPhrase(job *report.Job) phrase {
	return words(job.Kind + " ").add(quote(job.Namespace + "/" + job.Name)...)
}

func jobKey(i int) string { return "job:" + strconv.Itoa(i) }

func findingKey(i int, id string) string { return jobKey(i) + ":f:" + id }

func (w *mdWriter) warnings(titleKey string, ws []string) {
	if len(ws) == 0 {
		return
	}
	w.printf("> **%s %s**\n>\n", markerWarning, w.t(titleKey))
	for _, s := range ws {
		w.printf("> - %s\n", escapeInline(s))
	}
	w.printf("\n")
}

func (w *mdWriter) index(jobs []report.Job) {
	w.heading(2, T(w.lang, "report.index"), "")
	w.printf("| %s | %s | %s | %s |\n| --- | --- | --- | --- |\n",
		w.t("col.job"), w.t("col.state"), w.t("col.cause"), w.t("col.severity"))
	for i := range jobs {
		j := &jobs[i]
		cause, sev := "", ""
		if j.Primary != nil && !j.Healthy {
			cause = escapeInline(j.Primary.Title.In(w.lang))
			sev = w.severityBadge(j.Primary.Severity)
		}
		w.printf("| [%s](%s) | %s | %s | %s |\n",
			escapeInline(j.Namespace+"/"+j.Name), ref(jobKey(i)), w.stateBadge(JobState(j)), cause, sev)
	}
	w.printf("\n")
}

func (w *mdWriter) severityBadge(sev string) string {
	m, ok := severityMarker[sev]
	if !ok {
		return escapeInline(sev)
	}
	return fmt.Sprintf("**%s %s**", m, escapeInline(SeverityLabel(w.lang, sev)))
}

func (w *mdWriter) stateBadge(state string) string {
	return fmt.Sprintf("**%s %s**", stateMarker[state], escapeInline(StateLabel(w.lang, state)))
}

// job writes one job with its title at heading level lvl: the verdict,
// the primary cause with its evidence and consequences, the other
// findings, the pods, progress and the timeline.
func (w *mdWriter) job(j *report.Job, idx, lvl int) {
	w.jobIdx = idx
	w.headingPhrase(lvl, jobHeadingPhrase(j), jobKey(idx))
	w.verdict(j)
	w.facts(j)
	w.notices(j)
	state := JobState(j)
	if j.Primary != nil && state != StateHealthy {
		w.heading(lvl+1, T(w.lang, "finding.primary"), findingKey(idx, j.Primary.ID))
		w.findingBody(j, j.Primary, true)
	}
	g := groupFindings(j)
	if len(g.Consequences) > 0 {
		w.printf("%s\n\n", w.t("finding.consequences_intro"))
		for _, f := range g.Consequences {
			w.details(fill(w.lang, "finding.consequence_summary", "clause", subjectClause(j, f, w.lang)), func() {
				w.heading(lvl+2, Tf(w.lang, "finding.consequence_heading", "title", f.Title.In(w.lang)), findingKey(idx, f.ID))
				w.findingBody(j, f, false)
			})
		}
	}
	w.findingSection(j, idx, lvl, "finding.others", g.Others)
	w.findingSection(j, idx, lvl, "finding.risks", g.Risks)
	w.findingSection(j, idx, lvl, "finding.acknowledged", g.Acknowledged)
	w.explanation(j.Explanation, lvl+1)
	w.pods(j, lvl+1)
	w.progress(j.Progress, lvl+1)
	w.replicas(j.Replicas, lvl+1)
	w.timeline(j.Timeline, lvl+1)
}

func (w *mdWriter) findingSection(j *report.Job, idx, lvl int, titleKey string, fs []*report.Finding) {
	if len(fs) == 0 {
		return
	}
	w.heading(lvl+1, T(w.lang, titleKey), "")
	for _, f := range fs {
		title := f.Title.In(w.lang)
		if title == "" {
			title = f.Rule
		}
		w.heading(lvl+2, title, findingKey(idx, f.ID))
		w.findingBody(j, f, false)
	}
}

// verdict is the five-second block: the state and what broke, then where,
// since when, how it ended, who acts, how sure traindoc is, and whether a
// restart helps.
func (w *mdWriter) verdict(j *report.Job) {
	state := JobState(j)
	headline := ""
	if j.Primary != nil {
		headline = j.Primary.Title.In(w.lang)
	}
	if headline == "" && state == StateHealthy {
		headline = T(w.lang, "verdict.no_findings")
	}
	w.printf("**%s %s**\n\n", stateMarker[state], escapeInline(headlineText(state, headline, w.lang)))

	var items []string
	item := func(key string, p phrase) {
		if !p.empty() {
			items = append(items, "- "+w.label(key)+" "+p.md())
		}
	}
	if state != StateHealthy {
		item("verdict.where", where(j, j.Primary, w.lang))
		item("verdict.since", since(j, j.Primary, w.lang))
		item("verdict.exit", exitOf(j, j.Primary, w.lang))
		owner := ""
		if j.Primary != nil {
			owner = j.Primary.Owner
		}
		item("verdict.act", words(OwnerLabel(w.lang, owner)))
	}
	if p := j.Progress; p != nil && state != StateUnhealthy {
		item("verdict.progress", progressLine(p, w.lang))
	}
	level, why := Confidence(j)
	item("verdict.confidence", fill(w.lang, "confidence.line", "level", Term(w.lang, "confidence."+level), "why", T(w.lang, why)))
	if state == StateUnhealthy {
		key := "verdict.restart_no"
		if j.Retryable {
			key = "verdict.restart_yes"
		}
		item("verdict.restart", words(T(w.lang, key)))
	}
	if cs := consequences(j); len(cs) > 0 {
		var ps []phrase
		for _, f := range cs {
			ps = append(ps, subjectClause(j, f, w.lang))
		}
		item("verdict.then", join(ps, T(w.lang, "punct.list_sep")))
	}
	if g := groupFindings(j); len(g.Risks) > 0 {
		var ps []phrase
		for _, f := range g.Risks {
			ps = append(ps, words(f.Title.In(w.lang)))
		}
		item("verdict.advisories", join(ps, T(w.lang, "punct.list_sep")))
	}
	if len(items) > 0 {
		w.printf("%s\n\n", strings.Join(items, "\n"))
	}
}

// facts is one line about the job itself: its phase (and the kind's own
// status word, named), when it was created, the cluster and snapshot.
func (w *mdWriter) facts(j *report.Job) {
	var parts []string
	if j.Phase != "" {
		p := fill(w.lang, "job.phase", "phase", quote(j.Phase))
		if j.KindPhase != "" && j.KindPhase != j.Phase {
			p = fill(w.lang, "job.phase_kind", "phase", quote(j.Phase), "kind", quote(j.Kind), "status", quote(j.KindPhase))
		}
		parts = append(parts, p.md())
	}
	if j.CreatedAt != "" {
		parts = append(parts, fill(w.lang, "job.created", "time", formatTime(j.CreatedAt)).md())
	}
	if j.Cluster != "" {
		parts = append(parts, fill(w.lang, "job.cluster", "cluster", quote(j.Cluster)).md())
	}
	if j.CollectedAt != "" {
		parts = append(parts, fill(w.lang, "job.collected", "time", formatTime(j.CollectedAt)).md())
	}
	if len(parts) > 0 {
		w.printf("*%s*\n\n", strings.Join(parts, " · "))
	}
}

// notices are what a reader must know before trusting the verdict:
// traindoc's own faults on this job, logs that were not collected, notes.
func (w *mdWriter) notices(j *report.Job) {
	w.warnings("job.warnings", j.Warnings)
	if j.Primary != nil && !j.Healthy {
		for _, s := range podSubjects(j.Primary) {
			p := podRow(j, s.Name)
			if p != nil && p.LastLine == "" && len(p.LastLines) == 0 && p.ExitCode != nil && !hasLogOf(j.Primary, s.Name) {
				w.printf("> %s\n\n", fill(w.lang, "job.no_log", "pod", quote(s.Name)).md())
				break
			}
		}
	}
	// Notes come with the snapshot (its author's or the collector's), so
	// they are quoted as they are.
	for _, n := range j.Notes {
		w.printf("> %s %s\n\n", w.label("job.note"), codeSpan(n))
	}
}

func hasLogOf(f *report.Finding, pod string) bool {
	for _, e := range f.Evidence {
		if e.Kind == "log" && e.Object != nil && e.Object.Name == pod {
			return true
		}
	}
	return false
}

// findingBody is a finding under its heading: one line of facts, the
// message, where it happened, the evidence, and what to do.
func (w *mdWriter) findingBody(j *report.Job, f *report.Finding, primary bool) {
	parts := []string{w.severityBadge(f.Severity)}
	switch {
	case f.Acknowledged:
		by := f.AcknowledgedBy
		parts = append(parts, "**"+markerKnown+" "+w.t("finding.known")+"**")
		if by != "" {
			parts = append(parts, fill(w.lang, "finding.acknowledged_by", "by", quote(by)).md())
		}
	case f.Risk:
		parts = append(parts, "**"+markerAdvisory+" "+w.t("finding.advisory")+"**")
	}
	if f.CausedBy != "" {
		parts = append(parts, w.causedBy(j, f))
	}
	parts = append(parts, fill(w.lang, "finding.rule", "rule", quote(f.Rule)).md())
	if f.Category != "" {
		c := fill(w.lang, "finding.category", "category", quote(f.Category))
		if HasCategoryLabel(f.Category) {
			c = fill(w.lang, "finding.category_named", "category", quote(f.Category), "name", CategoryLabel(w.lang, f.Category))
		}
		parts = append(parts, c.md())
	}
	if f.Layer != "" {
		parts = append(parts, fill(w.lang, "finding.layer", "layer", LayerLabel(w.lang, f.Layer)).md())
	}
	if f.Consequence {
		parts = append(parts, fill(w.lang, "finding.owner_follows", "owner", OwnerShort(w.lang, ownerOf(j.Primary))).md())
	} else {
		parts = append(parts, fill(w.lang, "finding.owner", "owner", OwnerShort(w.lang, f.Owner)).md())
	}
	if f.FirstSeen != "" {
		parts = append(parts, fill(w.lang, "finding.first_seen", "time", formatTime(f.FirstSeen)).md())
	}
	w.printf("%s\n\n", strings.Join(parts, " · "))
	if msg := messagePhrase(f, w.lang); !msg.empty() {
		w.printf("%s\n\n", msg.md())
	}
	w.affected(j, f, primary)
	w.evidence(j, f)
	if primary {
		w.podTails(j, f)
	}
	if rem := adviceMarkdown(j, f, w.lang); rem != "" {
		w.printf("%s\n\n%s\n\n", w.label("finding.remediation"), rem)
	}
}

func ownerOf(f *report.Finding) string {
	if f == nil {
		return ""
	}
	return f.Owner
}

// causedBy links a consequence (or a fault a risk predicted) to its cause.
func (w *mdWriter) causedBy(j *report.Job, f *report.Finding) string {
	label := f.CausedBy
	if c := j.FindingByID(f.CausedBy); c != nil && c.Title.In(w.lang) != "" {
		label = c.Title.In(w.lang)
	}
	// The translated sentence carries the placeholder; the link is put in
	// after escaping so that its brackets stay syntax.
	sentence := escapeInline(T(w.lang, "finding.caused_by"))
	link := fmt.Sprintf("[%s](%s)", escapeInline(label), ref(findingKey(w.jobIdx, f.CausedBy)))
	return "*" + strings.ReplaceAll(sentence, "\\{cause\\}", link) + "*"
}

// affected lists the finding's objects. The primary's pods each get their
// node, state, exit code and restarts, so the reader sees where without
// scrolling to the pod table; long lists are folded.
func (w *mdWriter) affected(j *report.Job, f *report.Finding, primary bool) {
	if len(f.Subjects) == 0 {
		return
	}
	items := make([]string, 0, len(f.Subjects))
	for i, s := range f.Subjects {
		if i == maxListedSubjects {
			items = append(items, "- "+escapeInline(Tf(w.lang, "finding.more_subjects", "n", strconv.Itoa(len(f.Subjects)-i))))
			break
		}
		items = append(items, "- "+w.subjectLine(j, s).md())
	}
	if primary && len(f.Subjects) == 1 && f.Subjects[0].Kind == "Pod" {
		// The verdict above already says where, and how it ended.
		return
	}
	if len(items) <= shownPods || !primary && len(items) <= 3 {
		w.printf("%s\n\n%s\n\n", w.label("finding.subjects"), strings.Join(items, "\n"))
		return
	}
	shown := 3
	if primary {
		shown = shownPods
	}
	w.printf("%s\n\n%s\n\n", w.label("finding.subjects"), strings.Join(items[:shown], "\n"))
	w.details(fill(w.lang, "finding.more_subjects", "n", strconv.Itoa(len(f.Subjects)-shown)), func() {
		w.printf("%s\n\n", strings.Join(items[shown:], "\n"))
	})
}

// subjectLine is one affected object with what the pod table knows of it.
func (w *mdWriter) subjectLine(j *report.Job, s report.Subject) phrase {
	var p phrase
	switch s.Kind {
	case "Pod":
		p = podPlace(j, s, w.lang)
		if s.Container != "" {
			p = fill(w.lang, "subject.with_container", "place", p, "container", quote(s.Container))
		}
		if row := podRow(j, s.Name); row != nil {
			var more []phrase
			if row.State != "" {
				more = append(more, quote(row.State))
			}
			if row.ExitCode != nil {
				more = append(more, fill(w.lang, "exit.code", "code", strconv.Itoa(*row.ExitCode)))
			}
			if row.Restarts > 0 {
				more = append(more, fill(w.lang, "subject.restarts", "n", strconv.Itoa(row.Restarts)))
			}
			if len(more) > 0 {
				p = join([]phrase{p, join(more, " · ")}, " · ")
			}
		}
	case "Node":
		p = fill(w.lang, "where.node", "node", quote(s.Name))
	default:
		p = fill(w.lang, "where.object", "kind", quote(s.Kind), "name", quote(s.Name))
	}
	return p
}

// evidence shows the first items open and folds the rest.
func (w *mdWriter) evidence(j *report.Job, f *report.Finding) {
	evs := f.Evidence
	if len(evs) == 0 {
		return
	}
	w.printf("%s\n\n", w.label("finding.evidence"))
	n := min(len(evs), shownEvidence)
	for _, e := range evs[:n] {
		w.evidenceItem(e)
	}
	if len(evs) > n {
		w.details(fill(w.lang, "evidence.more", "n", strconv.Itoa(len(evs)-n)), func() {
			for _, e := range evs[n:] {
				w.evidenceItem(e)
			}
		})
	}
}

// evidenceHeader says what the evidence is and where it was found.
func evidenceHeader(e report.Evidence, lang string) phrase {
	kind := e.Kind
	switch kind {
	case "event", "log", "field", "condition", "exec", "progress":
		kind = Term(lang, "evidence."+kind)
	}
	parts := []phrase{words(kind)}
	container, detail := sourceDetail(e)
	if e.Object != nil {
		obj := objectPhrase(lang, e.Object.Kind, e.Object.Name)
		if container != "" {
			obj = fill(lang, "subject.with_container", "place", obj, "container", quote(container))
		}
		parts = append(parts, obj)
	}
	if detail != "" {
		parts = append(parts, quote(detail))
	}
	if e.Field != "" {
		parts = append(parts, quote(e.Field))
	}
	if e.File != "" {
		loc := quote(e.File)
		if e.Line > 0 {
			loc = fill(lang, "evidence.file_line", "file", quote(e.File), "n", strconv.Itoa(e.Line))
		}
		parts = append(parts, loc)
	}
	if e.Time != "" {
		parts = append(parts, words(formatTime(e.Time)))
	}
	if e.Count > 1 {
		parts = append(parts, fill(lang, "evidence.count", "n", strconv.Itoa(e.Count)))
	}
	return join(parts, " · ")
}

// objectPhrase is "pod `name`" in the reader's language.
func objectPhrase(lang, kind, name string) phrase {
	switch kind {
	case "Pod":
		return fill(lang, "object.pod", "name", quote(name))
	case "Node":
		return fill(lang, "object.node", "name", quote(name))
	}
	return fill(lang, "object.other", "kind", quote(kind), "name", quote(name))
}

// sourceDetail is what an evidence source says beyond its object: the
// container, command, event reason or condition ("pod w-0 container
// pytorch" gives "pytorch"). The engine writes sources as "<kind>
// <object> <detail>"; the object is shown on its own.
func sourceDetail(e report.Evidence) (container, detail string) {
	s := strings.TrimSpace(e.Source)
	if e.Object != nil {
		for _, prefix := range []string{
			"pod " + e.Object.Namespace + "/" + e.Object.Name,
			"pod " + e.Object.Name,
			"event " + e.Object.Kind + "/" + e.Object.Name,
			e.Object.Kind + " " + e.Object.Name,
			strings.ToLower(e.Object.Kind) + " " + e.Object.Name,
		} {
			if rest, ok := strings.CutPrefix(s, prefix); ok && (rest == "" || rest[0] == ' ') {
				s = strings.TrimSpace(rest)
				break
			}
		}
	}
	if rest, ok := strings.CutPrefix(s, "container "); ok {
		container, s = rest, ""
		if c, more, ok := strings.Cut(rest, " "); ok {
			container, s = c, strings.TrimSpace(more)
		}
	}
	if s == e.File || s == "logs" || s == e.Kind {
		s = ""
	}
	return container, s
}

// evidenceItem writes one piece of evidence: a header line, then the text
// in a fenced block with the log lines around it, the matching line
// marked, and the failing frame of a traceback named.
func (w *mdWriter) evidenceItem(e report.Evidence) {
	w.printf("%s\n\n", evidenceHeader(e, w.lang).md())
	if strings.TrimSpace(e.Text) == "" {
		return
	}
	ex := excerptOf(e)
	info := "text"
	if e.Kind == "log" || e.Kind == "exec" {
		info = "log"
		if ex.Mark > 0 && ex.Lines > 1 {
			info += " hl=" + strconv.Itoa(ex.Mark)
		}
	}
	writeFenced(&w.b, info, ex.Text)
	if ex.Frame != "" {
		w.printf("%s %s\n\n", w.label("evidence.frame"), codeSpan(ex.Frame))
	}
	if ex.Trimmed > 0 {
		w.printf("*%s*\n\n", w.t2("evidence.trimmed", "n", strconv.Itoa(ex.Trimmed)))
	}
	if ex.CutLines {
		w.printf("*%s*\n\n", w.t2("evidence.trimmed_chars", "max", strconv.Itoa(maxLineChars)))
	}
}

func (w *mdWriter) t2(key string, pairs ...string) string {
	return escapeInline(Tf(w.lang, key, pairs...))
}

// podTails shows the last lines a failing pod logged when no evidence of
// the finding quotes its log: what a killed container printed before it
// died.
func (w *mdWriter) podTails(j *report.Job, f *report.Finding) {
	shown := 0
	for _, s := range podSubjects(f) {
		if shown == 2 {
			break
		}
		p := podRow(j, s.Name)
		if p == nil || len(p.LastLines) == 0 || hasLogOf(f, s.Name) {
			continue
		}
		key := "evidence.last_lines"
		if p.TailPrevious {
			key = "evidence.last_lines_previous"
		}
		w.printf("%s\n\n", fill(w.lang, key, "pod", quote(p.Name)).md())
		writeFenced(&w.b, "log", tailText(p.LastLines))
		shown++
	}
}

func tailText(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = cutLine(l)
	}
	return strings.Join(out, "\n")
}

// codeSpan renders s as an inline code span whose delimiter is longer than
// any backtick run inside it.
func codeSpan(s string) string {
	// One line, as inline text and heading ids read it (see anchors.go).
	s = inlineText(s)
	s = breakTemplates(s)
	if s == "" {
		return ""
	}
	d := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return d + s + d
}

// codeCell is codeSpan inside a GFM table cell: a pipe, even in a code
// span, would end the cell, so it is escaped (GitHub and goldmark show
// "\|" in a cell's code span as "|").
func codeCell(s string) string { return strings.ReplaceAll(codeSpan(s), "|", "\\|") }

// breakTemplates keeps template delimiters in quoted names from reaching
// a template engine a Markdown file may pass through (Liquid in Jekyll
// runs before Markdown, code spans included): a zero-width space between
// the two characters reads the same and matches nothing.
func breakTemplates(s string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if i+1 < len(s) && templatePair(s[i], s[i+1]) {
			b.WriteString("\u200b")
		}
	}
	return b.String()
}

func templatePair(a, b byte) bool {
	switch {
	case a == '{':
		return b == '{' || b == '%' || b == '#'
	case b == '}':
		return a == '}' || a == '%' || a == '#'
	}
	return false
}

// footer names when the evidence was taken: the job's own snapshot on a
// page of one job (a report merged from several snapshots has the newest
// as its time, which would contradict the job's header), else the report's.
func (w *mdWriter) footer(rep *report.Report, version, jobCollectedAt string) {
	v := rep.Tool.Version
	if v == "" {
		v = version
	}
	if v == "" {
		v = "dev"
	}
	ts := formatTime(cmp.Or(jobCollectedAt, rep.CollectedAt))
	if ts == "" {
		ts = T(w.lang, "progress.unknown")
	}
	w.printf("---\n\n*%s*\n", escapeInline(Tf(w.lang, "report.footer", "time", ts, "version", v)))
}

// headlineText is "Not healthy: GPU out of memory".
func headlineText(state, headline, lang string) string {
	if headline == "" {
		return StateLabel(lang, state)
	}
	return Tf(lang, "verdict.headline", "state", StateLabel(lang, state), "what", headline)
}
