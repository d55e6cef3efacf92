package render

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/report"
)

// Job states as people read them. A job that is not healthy because
// someone paused it (suspended, or kept running in a debug mode) is not
// failing: it is shown in its own, neutral state.
const (
	StateHealthy   = "healthy"
	StateUnhealthy = "unhealthy"
	StateSuspended = "suspended"
	StateDebug     = "debug"
)

// heldStates are the primary categories that mean someone holds the job
// on purpose, with the state they show as.
var heldStates = map[string]string{
	"job.suspended":  StateSuspended,
	"job.debug-mode": StateDebug,
}

// JobState is the state a job is shown in: healthy, not healthy, or held
// (suspended, debug mode). The primary cause decides, not the phase: a job
// a queue suspends for want of quota is failing to start, not paused by
// its owner.
func JobState(j *report.Job) string {
	if j.Healthy {
		return StateHealthy
	}
	if j.State == report.StateHeld && j.Primary != nil {
		if s, ok := heldStates[j.Primary.Category]; ok {
			return s
		}
	}
	if j.Primary != nil {
		if s, ok := heldStates[j.Primary.Category]; ok {
			return s
		}
	}
	return StateUnhealthy
}

// Confidence levels: how sure traindoc is of a job's verdict.
const (
	ConfidenceHigh   = "high"
	ConfidenceMedium = "medium"
	ConfidenceLow    = "low"
)

// Confidence says how sure traindoc is of the verdict and why, from the
// kind of evidence behind the primary finding: a quoted log line or
// command output, a pod's or node's own status, only the job's conditions,
// or nothing. Faults of traindoc's own on the job (a log it could not
// read) lower it by one step.
func Confidence(j *report.Job) (level, whyKey string) {
	p := j.Primary
	switch {
	case j.Healthy && j.Progress != nil:
		level, whyKey = ConfidenceHigh, "confidence.why.progress"
	case j.Healthy:
		level, whyKey = ConfidenceMedium, "confidence.why.healthy"
	case p == nil || len(p.Evidence) == 0:
		return ConfidenceLow, "confidence.why.none"
	default:
		level, whyKey = ConfidenceMedium, "confidence.why.job_status"
		for _, e := range p.Evidence {
			switch {
			case e.Kind == "log" && strings.TrimSpace(e.Text) != "":
				return lowered(j, ConfidenceHigh, "confidence.why.log")
			case e.Kind == "exec" && strings.TrimSpace(e.Text) != "":
				level, whyKey = ConfidenceHigh, "confidence.why.exec"
			case (e.Kind == "field" || e.Kind == "event") && aboutSubject(p, e) && level != ConfidenceHigh:
				level, whyKey = ConfidenceHigh, "confidence.why.object_status"
			}
		}
	}
	return lowered(j, level, whyKey)
}

func lowered(j *report.Job, level, why string) (string, string) {
	if len(j.Warnings) == 0 {
		return level, why
	}
	if level == ConfidenceHigh {
		return ConfidenceMedium, "confidence.why.warnings"
	}
	return ConfidenceLow, "confidence.why.warnings"
}

// aboutSubject reports whether evidence belongs to one of the finding's
// pods or nodes rather than to the job object.
func aboutSubject(f *report.Finding, e report.Evidence) bool {
	if e.Object == nil {
		return false
	}
	for _, s := range f.Subjects {
		if s.Kind != "Pod" && s.Kind != "Node" {
			continue
		}
		if s.Kind == e.Object.Kind && s.Name == e.Object.Name {
			return true
		}
	}
	return false
}

// podRow returns the pod table row of name, or nil.
func podRow(j *report.Job, name string) *report.Pod {
	for i := range j.Pods {
		if j.Pods[i].Name == name {
			return &j.Pods[i]
		}
	}
	return nil
}

// subjectNode is the node a subject ran on: its own, or its pod's.
func subjectNode(j *report.Job, s report.Subject) string {
	if s.Kind == "Node" {
		return s.Name
	}
	if s.Node != "" {
		return s.Node
	}
	if s.Kind == "Pod" {
		if p := podRow(j, s.Name); p != nil {
			return p.Node
		}
	}
	return ""
}

// findingNodes are the distinct nodes of a finding's subjects, in order.
func findingNodes(j *report.Job, f *report.Finding) []string {
	var out []string
	for _, s := range f.Subjects {
		if n := subjectNode(j, s); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// podSubjects are the distinct pods a finding names, in order.
func podSubjects(f *report.Finding) []report.Subject {
	var out []report.Subject
	seen := map[string]bool{}
	for _, s := range f.Subjects {
		if s.Kind == "Pod" && !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	return out
}

// maxWhere is how many places the verdict names before counting the rest.
const maxWhere = 3

// where says where a finding happened: its pods with rank and node, its
// nodes, or the job itself.
func where(j *report.Job, f *report.Finding, lang string) phrase {
	if f == nil {
		return nil
	}
	var items []phrase
	pods := podSubjects(f)
	for i, s := range pods {
		if i == maxWhere {
			items = append(items, fill(lang, "where.more_pods", "n", strconv.Itoa(len(pods)-maxWhere)))
			break
		}
		items = append(items, podPlace(j, s, lang))
	}
	for _, s := range f.Subjects {
		if s.Kind == "Node" {
			items = append(items, fill(lang, "where.node", "node", quote(s.Name)))
		}
	}
	if len(items) == 0 {
		for _, s := range f.Subjects {
			if s.Kind != "Pod" && s.Kind != "Node" {
				items = append(items, fill(lang, "where.object", "kind", quote(s.Kind), "name", quote(s.Name)))
				break
			}
		}
	}
	if len(items) == 0 {
		return fill(lang, "where.job")
	}
	return join(items, T(lang, "punct.list_sep"))
}

// podPlace is "pod `w-0` (rank 13) on node `n7`".
func podPlace(j *report.Job, s report.Subject, lang string) phrase {
	p := fill(lang, "where.pod", "pod", quote(s.Name))
	if s.Rank != nil {
		p = fill(lang, "where.pod_rank", "pod", quote(s.Name), "rank", strconv.Itoa(*s.Rank))
	}
	if n := subjectNode(j, s); n != "" {
		p = fill(lang, "where.on_node", "place", p, "node", quote(n))
	}
	return p
}

// exitOf says how the finding's pods ended: "exit code 137 (OOMKilled)",
// one clause per distinct code and reason.
func exitOf(j *report.Job, f *report.Finding, lang string) phrase {
	if f == nil {
		return nil
	}
	type end struct {
		code   int
		reason string
	}
	var ends []end
	for _, s := range podSubjects(f) {
		p := podRow(j, s.Name)
		if p == nil || p.ExitCode == nil {
			continue
		}
		e := end{code: *p.ExitCode, reason: stateReason(p.State)}
		if !slices.Contains(ends, e) {
			ends = append(ends, e)
		}
	}
	var items []phrase
	for _, e := range ends {
		if e.reason != "" {
			items = append(items, fill(lang, "exit.code_reason", "code", strconv.Itoa(e.code), "reason", quote(e.reason)))
		} else {
			items = append(items, fill(lang, "exit.code", "code", strconv.Itoa(e.code)))
		}
	}
	return join(items, T(lang, "punct.list_sep"))
}

// stateReason is the reason of a pod table state ("terminated: OOMKilled"
// gives "OOMKilled").
func stateReason(state string) string {
	_, reason, _ := strings.Cut(state, ": ")
	return strings.TrimSpace(reason)
}

// exitCodes are the exit codes known for a finding: its code parameter
// and those of its pods.
func exitCodes(j *report.Job, f *report.Finding) []int {
	var out []int
	add := func(c int) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	switch v := f.Params["code"].(type) {
	case float64:
		add(int(v))
	case int:
		add(v)
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			add(n)
		}
	}
	for _, s := range podSubjects(f) {
		if p := podRow(j, s.Name); p != nil && p.ExitCode != nil {
			add(*p.ExitCode)
		}
	}
	sort.Ints(out)
	return out
}

// since is when the finding was first seen, with how long after the job
// was created.
func since(j *report.Job, f *report.Finding, lang string) phrase {
	if f == nil || f.FirstSeen == "" {
		return nil
	}
	out := words(formatTime(f.FirstSeen))
	seen, err1 := parseTime(f.FirstSeen)
	created, err2 := parseTime(j.CreatedAt)
	if err1 == nil && err2 == nil && !seen.Before(created) {
		out = fill(lang, "since.after_created", "time", out, "duration", formatDuration(lang, seen.Sub(created)))
	}
	return out
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t, err = time.Parse(time.RFC3339, s)
	}
	return t, err
}

// formatDuration is a duration for people: "40 s", "36 min", "5 h 12 min",
// "3 d 4 h".
func formatDuration(lang string, d time.Duration) string {
	switch {
	case d < time.Minute:
		return Tf(lang, "duration.seconds", "n", strconv.Itoa(int(d.Seconds())))
	case d < time.Hour:
		return Tf(lang, "duration.minutes", "n", strconv.Itoa(int(d.Minutes())))
	case d < 48*time.Hour:
		h := int(d.Hours())
		return Tf(lang, "duration.hours", "h", strconv.Itoa(h), "m", strconv.Itoa(int(d.Minutes())-60*h))
	}
	days := int(d.Hours()) / 24
	return Tf(lang, "duration.days", "d", strconv.Itoa(days), "h", strconv.Itoa(int(d.Hours())-24*days))
}

// consequences are the findings the primary caused, in report order.
func consequences(j *report.Job) []*report.Finding {
	var out []*report.Finding
	for i := range j.Findings {
		f := &j.Findings[i]
		if j.Primary != nil && f.ID != j.Primary.ID && f.Consequence && !f.Acknowledged {
			out = append(out, f)
		}
	}
	return out
}

// findingGroups splits a job's findings other than the primary into the
// sections reports show them in.
type findingGroups struct {
	Consequences []*report.Finding // caused by a fault
	Others       []*report.Finding // other faults
	Risks        []*report.Finding // advisories
	Acknowledged []*report.Finding // known issues
}

func groupFindings(j *report.Job) findingGroups {
	var g findingGroups
	for i := range j.Findings {
		f := &j.Findings[i]
		switch {
		case j.Primary != nil && f.ID == j.Primary.ID:
		case f.Category == report.CategoryHealthy:
		case f.Acknowledged:
			g.Acknowledged = append(g.Acknowledged, f)
		case f.Risk:
			g.Risks = append(g.Risks, f)
		case f.Consequence:
			g.Consequences = append(g.Consequences, f)
		default:
			g.Others = append(g.Others, f)
		}
	}
	return g
}

// subjectCount is "3 pods: Collective operation timed out", the summary
// clause of a finding, with names quoted.
func subjectClause(j *report.Job, f *report.Finding, lang string) phrase {
	for _, p := range j.SummaryParts {
		if p.Finding == f.ID {
			q := report.Part{Role: report.RolePrimary, Key: p.Key, Params: p.Params, Finding: p.Finding}
			return partPhrase(j, q, lang)
		}
	}
	return words(f.Title.In(lang))
}

// partPhrase renders a summary part with its names quoted.
func partPhrase(j *report.Job, p report.Part, lang string) phrase {
	const mark = "\uE002"
	text := j.PartText(p, lang, func(s string) string { return mark + strings.ReplaceAll(s, mark, "") + mark })
	var out phrase
	for i, piece := range strings.Split(text, mark) {
		if i%2 == 1 {
			out = out.add(quote(piece)...)
		} else {
			out = out.add(words(piece)...)
		}
	}
	return out
}
