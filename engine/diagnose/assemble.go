package diagnose

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/report"
)

// maxEvidence bounds the evidence kept per finding; the rest is counted in
// the finding's "moreEvidence" parameter so that trimming is never silent.
const maxEvidence = 12

// assemble turns raw rule output into report findings. Per-container
// fallbacks are dropped where a more specific fault was found (see
// dropSubjectFallbacks). Findings of one rule with the same category,
// severity, owner and parameters are merged into one finding listing every
// subject: a 512-rank job gets one NCCL-timeout finding naming 511 pods,
// not 511 findings. Evidence that does not decode is reported as a
// problem of its rule.
func assemble(e *policy.Engine, job *evidence.Job, raw []policy.RawFinding) ([]report.Finding, []policy.Problem) {
	type group struct {
		f     report.Finding
		seen  map[string]bool
		subjs map[string]bool
		more  int
	}
	var (
		order    []string
		problems []policy.Problem
	)
	pods := map[string]*evidence.Pod{}
	for i := range job.Pods {
		pods[job.Pods[i].Name] = &job.Pods[i]
	}
	items := make([]rawItem, 0, len(raw))
	for i := range raw {
		rf := &raw[i]
		rule := e.RuleOf(rf)
		category := cmp.Or(rf.Category, rule.Category)
		it := rawItem{rf: rf, rule: rule, category: category, severity: cmp.Or(rf.Severity, rule.Severity)}
		if rf.Subject != nil {
			var s report.Subject
			if err := json.Unmarshal(*rf.Subject, &s); err != nil {
				problems = append(problems, policy.Problem{Rule: rule.ID, Location: ruleLocation(rule), Message: fmt.Sprintf("subject does not decode: %v; the finding is kept without it", err)})
			} else {
				it.subject = enrichSubject(s, job, pods)
			}
		}
		items = append(items, it)
	}
	items = dropSubjectFallbacks(e, items)
	groups := map[string]*group{}
	for _, it := range items {
		rf, rule := it.rf, it.rule
		layer := e.Categories()[it.category]
		owner := cmp.Or(rf.Owner, rule.Owner)
		params := rf.Params
		pj, _ := json.Marshal(params)
		key := rule.ID + "\x00" + it.category + "\x00" + it.severity + "\x00" + owner + "\x00" + string(pj)
		noRetry := rf.Retryable != nil && !*rf.Retryable
		if noRetry {
			// Only then, so that the IDs of every other finding stay as they were.
			key += "\x00no-retry"
		}
		g := groups[key]
		if g == nil {
			sum := sha256.Sum256([]byte(job.Kind + "/" + job.Namespace + "/" + job.Name + "\x00" + key))
			g = &group{
				f: report.Finding{
					ID: rule.ID + "-" + hex.EncodeToString(sum[:4]), Rule: rule.ID,
					Category: it.category, Layer: layer, Severity: it.severity, Owner: owner,
					Title: rule.Title, Message: rule.RenderMessage(params), Remediation: rule.Remediation,
					Params: params, Evidence: []report.Evidence{},
				},
				seen: map[string]bool{}, subjs: map[string]bool{},
			}
			if noRetry {
				g.f.Retryable = rf.Retryable
			}
			groups[key] = g
			order = append(order, key)
		}
		if s := it.subject; s != nil {
			sk := s.Kind + "/" + s.Namespace + "/" + s.Name + "/" + s.Container
			if !g.subjs[sk] {
				g.subjs[sk] = true
				g.f.Subjects = append(g.f.Subjects, *s)
			}
		}
		evs, bad := decodeEvidence(rf.Evidence)
		for _, msg := range bad {
			problems = append(problems, policy.Problem{Rule: rule.ID, Location: ruleLocation(rule), Message: msg})
		}
		for _, ev := range evs {
			ek := ev.Kind + "\x00" + ev.Source + "\x00" + ev.Field + "\x00" + ev.Text + "\x00" + ev.Time
			if g.seen[ek] {
				continue
			}
			g.seen[ek] = true
			if len(g.f.Evidence) >= maxEvidence {
				g.more++
				continue
			}
			g.f.Evidence = append(g.f.Evidence, ev)
		}
		if t := rf.Time; t != "" && (g.f.FirstSeen == "" || before(t, g.f.FirstSeen)) {
			g.f.FirstSeen = normTime(t)
		}
	}
	out := make([]report.Finding, 0, len(order))
	for _, k := range order {
		g := groups[k]
		if g.more > 0 {
			if g.f.Params == nil {
				g.f.Params = map[string]any{}
			}
			g.f.Params["moreEvidence"] = g.more
		}
		sort.SliceStable(g.f.Subjects, func(a, b int) bool { return g.f.Subjects[a].Name < g.f.Subjects[b].Name })
		out = append(out, g.f)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out, problems
}

// rawItem is one raw finding with what the engine resolved about it.
type rawItem struct {
	rf       *policy.RawFinding
	rule     *policy.Rule
	category string
	severity string
	subject  *report.Subject
}

// enrichSubject completes a pod subject with what the evidence knows and
// the rule may not have said: the namespace and the node the pod ran on.
// A rule that names the node itself (a node finding about the node whose
// evidence shows the fault) is not overridden.
func enrichSubject(s report.Subject, job *evidence.Job, pods map[string]*evidence.Pod) *report.Subject {
	if s.Kind == "Pod" {
		if s.Namespace == "" {
			s.Namespace = job.Namespace
		}
		if p := pods[s.Name]; p != nil && s.Node == "" && (s.Namespace == p.Namespace || p.Namespace == "") {
			s.Node = p.NodeName
		}
	}
	if s.Kind == "Node" && s.Node == "" {
		s.Node = s.Name
	}
	return &s
}

// dropSubjectFallbacks removes per-container fallback findings (the
// taxonomy's fallback_subject: an uncaught Python exception, a bare
// non-zero exit) for a container in which a more specific fault at
// warning or above was found by any rule. A finding about the whole pod
// covers each of its containers. Which categories are fallbacks, and
// their order, is data; no rule needs to know the others.
func dropSubjectFallbacks(e *policy.Engine, items []rawItem) []rawItem {
	type where struct{ ns, pod, container string }
	// best[w] is the lowest fallback rank of a fault about w; 0 for a
	// fault that is no fallback.
	best := map[where]int{}
	for _, it := range items {
		if it.subject == nil || it.subject.Kind != "Pod" || !coveringFault(e, it) {
			continue
		}
		rank, _ := e.SubjectFallback(it.category)
		w := where{it.subject.Namespace, it.subject.Name, it.subject.Container}
		if r, ok := best[w]; !ok || rank < r {
			best[w] = rank
		}
	}
	covered := func(w where, rank int) bool {
		for _, c := range []where{w, {w.ns, w.pod, ""}} {
			if r, ok := best[c]; ok && r < rank {
				return true
			}
		}
		return false
	}
	return slices.DeleteFunc(items, func(it rawItem) bool {
		rank, ok := e.SubjectFallback(it.category)
		if !ok || it.subject == nil {
			return false
		}
		return covered(where{it.subject.Namespace, it.subject.Name, it.subject.Container}, rank)
	})
}

func coveringFault(e *policy.Engine, it rawItem) bool {
	return it.category != report.CategoryHealthy && !e.Risk(it.category) && !e.JobFallback(it.category) &&
		report.SeverityRank(it.severity) >= report.SeverityRank(report.SeverityWarning)
}

// decodeEvidence decodes each evidence entry on its own, so that one entry
// of the wrong shape is reported and the others kept.
func decodeEvidence(raw json.RawMessage) ([]report.Evidence, []string) {
	if len(raw) == 0 {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, []string{fmt.Sprintf("evidence does not decode: %v; it is left out", err)}
	}
	out := make([]report.Evidence, 0, len(items))
	var bad []string
	for i, item := range items {
		var ev report.Evidence
		if err := json.Unmarshal(item, &ev); err != nil {
			bad = append(bad, fmt.Sprintf("evidence[%d] does not decode: %v; it is left out", i, err))
			continue
		}
		out = append(out, ev)
	}
	return out, bad
}

func ruleLocation(r *policy.Rule) string {
	if r.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", r.File, r.Line)
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// before compares RFC 3339 times; unparseable times sort last.
func before(a, b string) bool {
	ta, okA := parseTime(a)
	tb, okB := parseTime(b)
	switch {
	case okA && okB:
		return ta.Before(tb)
	case okA:
		return true
	}
	return false
}

func normTime(s string) string {
	if t, ok := parseTime(s); ok {
		return t.UTC().Format(time.RFC3339Nano)
	}
	return s
}
