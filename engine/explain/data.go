package explain

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
)

// MetadataKeys are the keys of Data.Metadata. They are the variables of the
// PyTorchJob diagnosis prompt format, so that templates written for it render
// unchanged; every kind fills all of them ("N/A" where a kind has no such
// replica).
var MetadataKeys = []string{
	"JobName",
	"JobStatus",
	"LauncherStatus",
	"MasterExpected",
	"MasterCreatedCount",
	"WorkerExpected",
	"WorkerCreatedCount",
	"MasterDiagnosis",
	"WorkerDiagnosis",
}

// Data is what a prompt template sees. All text that came from the job
// (logs, events, object fields, rule parameters) has been redacted, and the
// log and event blocks are already fenced.
type Data struct {
	// Metadata holds the job facts under MetadataKeys, used as
	// {{ index .Metadata "JobName" }}.
	Metadata map[string]string
	// ErrorInfo is the rule findings as text, primary cause first.
	ErrorInfo string
	// EventInfo is the job timeline (conditions, pod changes, events),
	// fenced.
	EventInfo string
	// LogInfo is the log evidence of the findings, one fenced block per
	// excerpt.
	LogInfo string

	Kind       string
	APIVersion string
	Namespace  string
	Name       string
	// Phase is traindoc's normalised phase, KindPhase the kind's own word.
	Phase     string
	KindPhase string
	// Language is the report language ("en" or "zh"); the answer must be in
	// it.
	Language string
	// Summary is the rule-based one-line reading of the job.
	Summary     string
	CollectedAt string
	Healthy     bool
	Primary     *Finding
	Findings    []Finding
	Replicas    []report.Replica
	// Progress is nil when the job reported no training progress.
	Progress *Progress
	Nodes    []string
	Notes    []string
}

// Finding is a rule finding with its texts in the prompt language.
type Finding struct {
	ID          string
	Rule        string
	Category    string
	Layer       string
	Severity    string
	Owner       string
	Title       string
	Message     string
	Remediation string
	// Subjects are "pod NAME (container C, rank N)" and the like.
	Subjects    []string
	Evidence    []Evidence
	FirstSeen   string
	CausedBy    string
	Consequence bool
	Primary     bool
}

// Evidence is one fact behind a finding. Text is redacted, not fenced: use
// the fence function when putting it in a prompt.
type Evidence struct {
	Kind   string
	Source string
	File   string
	Line   int
	Text   string
	Time   string
	Count  int
}

// Progress is report.Progress as text; empty strings are unknown values.
type Progress struct {
	LastStep           string
	TotalSteps         string
	LastStepTime       string
	Throughput         string
	BaselineThroughput string
	LastLoss           string
	CheckpointStep     string
	CheckpointTime     string
	GPUUtilization     string
}

// Limits that keep a prompt within a small model's context. Logs are the
// bulk; the tail of an excerpt is kept because tracebacks end there.
const (
	maxEventEntries    = 60
	maxEventChars      = 6000
	maxLogChars        = 12000
	maxExcerptLines    = 40
	maxExcerptChars    = 4000
	maxEvidencePerFind = 3
	// Other findings are often consequences repeating one line per rank.
	maxEvidencePerConsequence = 1
	maxSubjectsListed         = 8
	maxDiagnosisFinding       = 3
	notApplicable             = "N/A"
)

// label is one of the few words the data blocks use, in the prompt
// language, from the "prompt" catalogue of internal/i18n.
func label(lang, key string) string { return i18n.T(lang, "prompt."+key) }

// labelN is label with its {n} (or {id}) placeholder filled.
func labelN(lang, key, name, value string) string { return i18n.Tf(lang, "prompt."+key, name, value) }

// NewData builds the template data for one job of a report. rep may be nil.
func NewData(job *report.Job, rep *report.Report, lang string) *Data {
	lang = normLang(lang)
	job = oneLineNames(job)
	d := &Data{
		Kind:       job.Kind,
		APIVersion: job.APIVersion,
		Namespace:  job.Namespace,
		Name:       job.Name,
		Phase:      job.Phase,
		KindPhase:  job.KindPhase,
		Language:   lang,
		Summary:    redact.String(job.Summary.In(lang)),
		Healthy:    job.Healthy,
		Replicas:   append([]report.Replica(nil), job.Replicas...),
		Nodes:      append([]string(nil), job.Nodes...),
	}
	if rep != nil {
		d.CollectedAt = rep.CollectedAt
	}
	for _, n := range job.Notes {
		d.Notes = append(d.Notes, redact.String(n))
	}
	primaryID := ""
	if job.Primary != nil {
		primaryID = job.Primary.ID
	}
	for i := range job.Findings {
		f := newFinding(&job.Findings[i], lang)
		f.Primary = primaryID != "" && f.ID == primaryID
		d.Findings = append(d.Findings, f)
	}
	// The primary leads, whether or not the rules listed it first.
	sort.SliceStable(d.Findings, func(a, b int) bool { return d.Findings[a].Primary && !d.Findings[b].Primary })
	if job.Primary != nil {
		if len(d.Findings) > 0 && d.Findings[0].Primary {
			d.Primary = &d.Findings[0]
		} else {
			p := newFinding(job.Primary, lang)
			p.Primary = true
			d.Primary = &p
		}
	}
	if job.Progress != nil {
		d.Progress = newProgress(job.Progress)
	}
	d.Metadata = metadata(job, d)
	d.ErrorInfo = errorInfo(d, lang)
	d.EventInfo = eventInfo(job.Timeline, lang)
	d.LogInfo = logInfo(d, lang)
	return d
}

// oneLineNames returns a copy of job whose names, kinds and phases are one
// line each. They are written outside the prompt's fenced data, and a
// snapshot may name a job anything: a line break in a name could start a
// line that passes for a section of the prompt.
func oneLineNames(job *report.Job) *report.Job {
	j := *job
	for _, p := range []*string{&j.Kind, &j.APIVersion, &j.Namespace, &j.Name, &j.Phase, &j.KindPhase} {
		*p = oneLine(*p)
	}
	j.Nodes = make([]string, len(job.Nodes))
	for i, n := range job.Nodes {
		j.Nodes[i] = oneLine(n)
	}
	j.Replicas = make([]report.Replica, len(job.Replicas))
	for i, r := range job.Replicas {
		r.Type = oneLine(r.Type)
		j.Replicas[i] = r
	}
	j.Summary = report.Text{En: oneLine(job.Summary.En), Zh: oneLine(job.Summary.Zh)}
	return &j
}

func newFinding(f *report.Finding, lang string) Finding {
	out := Finding{
		ID:          f.ID,
		Rule:        f.Rule,
		Category:    f.Category,
		Layer:       f.Layer,
		Severity:    f.Severity,
		Owner:       f.Owner,
		Title:       redact.String(oneLine(f.Title.In(lang))),
		Message:     redact.String(f.Message.In(lang)),
		Remediation: redact.String(f.Remediation.In(lang)),
		FirstSeen:   f.FirstSeen,
		CausedBy:    f.CausedBy,
		Consequence: f.Consequence,
	}
	for _, s := range f.Subjects {
		out.Subjects = append(out.Subjects, subject(s))
	}
	for _, e := range f.Evidence {
		out.Evidence = append(out.Evidence, Evidence{
			Kind:   e.Kind,
			Source: redact.String(e.Source),
			File:   e.File,
			Line:   e.Line,
			Text:   strings.Join(redact.Lines(strings.Split(e.Text, "\n")), "\n"),
			Time:   e.Time,
			Count:  e.Count,
		})
	}
	return out
}

func subject(s report.Subject) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(oneLine(s.Kind)))
	b.WriteString(" ")
	b.WriteString(oneLine(s.Name))
	var extra []string
	if s.Container != "" {
		extra = append(extra, "container "+oneLine(s.Container))
	}
	if s.Rank != nil {
		extra = append(extra, "rank "+strconv.Itoa(*s.Rank))
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	return b.String()
}

func newProgress(p *report.Progress) *Progress {
	i64 := func(v *int64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatInt(*v, 10)
	}
	f64 := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', 6, 64)
	}
	rate := func(v float64) string {
		if v == 0 {
			return ""
		}
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if p.ThroughputUnit != "" {
			s += " " + p.ThroughputUnit
		}
		return s
	}
	return &Progress{
		LastStep:           i64(p.LastStep),
		TotalSteps:         i64(p.TotalSteps),
		LastStepTime:       p.LastStepTime,
		Throughput:         rate(p.Throughput),
		BaselineThroughput: rate(p.BaselineThroughput),
		LastLoss:           f64(p.LastLoss),
		CheckpointStep:     i64(p.CheckpointStep),
		CheckpointTime:     p.CheckpointTime,
		GPUUtilization:     f64(p.GPUUtilization),
	}
}

// Replica roles. Master-like types lead the job (PyTorchJob Master, TFJob
// Chief, Ray head); the launcher is MPI's; everything else counts as
// workers (Worker, Ray worker groups, TrainJob nodes, PS).
func replicaRole(typ string) string {
	switch strings.ToLower(typ) {
	case "master", "chief", "head", "headgroup", "head-group":
		return "master"
	case "launcher":
		return "launcher"
	}
	return "worker"
}

// metadata fills the PyTorchJob-diagnosis variables for any kind.
func metadata(job *report.Job, d *Data) map[string]string {
	status := job.KindPhase
	if status == "" {
		status = job.Phase
	}
	m := map[string]string{
		"JobName":   job.Name,
		"JobStatus": status,
	}
	groups := map[string][]report.Replica{}
	for _, r := range job.Replicas {
		role := replicaRole(r.Type)
		groups[role] = append(groups[role], r)
	}
	m["LauncherStatus"] = notApplicable
	if rs := groups["launcher"]; len(rs) > 0 {
		m["LauncherStatus"] = replicaStatus(sumReplicas(rs))
	}
	for _, role := range []string{"master", "worker"} {
		prefix := "Master"
		if role == "worker" {
			prefix = "Worker"
		}
		rs := groups[role]
		if len(rs) == 0 {
			m[prefix+"Expected"] = notApplicable
			m[prefix+"CreatedCount"] = notApplicable
			m[prefix+"Diagnosis"] = notApplicable
			continue
		}
		sum := sumReplicas(rs)
		m[prefix+"Expected"] = strconv.Itoa(sum.Expected)
		m[prefix+"CreatedCount"] = strconv.Itoa(sum.Created)
		m[prefix+"Diagnosis"] = replicaDiagnosis(sum, rs, d.Findings)
	}
	return m
}

func sumReplicas(rs []report.Replica) report.Replica {
	var s report.Replica
	for _, r := range rs {
		s.Expected += r.Expected
		s.Created += r.Created
		s.Pending += r.Pending
		s.Running += r.Running
		s.Succeeded += r.Succeeded
		s.Failed += r.Failed
		s.Restarts += r.Restarts
	}
	return s
}

// replicaStatus is one word for a replica group, worst state first.
func replicaStatus(r report.Replica) string {
	switch {
	case r.Failed > 0:
		return "Failed"
	case r.Created == 0:
		return "NotCreated"
	case r.Pending > 0:
		return "Pending"
	case r.Running > 0:
		return "Running"
	case r.Succeeded > 0 && r.Succeeded >= r.Expected:
		return "Succeeded"
	}
	return "Unknown"
}

// replicaDiagnosis summarises a replica group: its counts and the findings
// about its pods.
func replicaDiagnosis(sum report.Replica, rs []report.Replica, findings []Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d/%d created, %d pending, %d running, %d succeeded, %d failed, %d restarts",
		replicaStatus(sum), sum.Created, sum.Expected, sum.Pending, sum.Running, sum.Succeeded, sum.Failed, sum.Restarts)
	n := 0
	for _, f := range findings {
		if !aboutReplicas(f, rs) {
			continue
		}
		if n == maxDiagnosisFinding {
			b.WriteString("; …")
			break
		}
		fmt.Fprintf(&b, "; %s (%s): %s", f.Category, f.Severity, f.Title)
		n++
	}
	return b.String()
}

// aboutReplicas reports whether a finding names a pod of one of the replica
// types. Pods are named <job>-<type>-<index> by every Kubeflow operator and
// <cluster>-<group>-... by KubeRay.
func aboutReplicas(f Finding, rs []report.Replica) bool {
	for _, s := range f.Subjects {
		if !strings.HasPrefix(s, "pod ") {
			continue
		}
		name := strings.ToLower(strings.Fields(s)[1])
		for _, r := range rs {
			t := "-" + strings.ToLower(r.Type) + "-"
			if strings.Contains(name+"-", t) {
				return true
			}
		}
	}
	return false
}

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

func normLang(lang string) string { return i18n.Normalize(lang) }
