package explain

import (
	"sort"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
)

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

func normLang(lang string) string { return i18n.Normalize(lang) }
