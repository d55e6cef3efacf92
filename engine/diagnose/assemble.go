package diagnose

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/report"
)

// maxEvidence bounds the evidence kept per finding; the rest is counted in
// the finding's "moreEvidence" parameter so that trimming is never silent.
const maxEvidence = 12

// assemble turns raw rule output into report findings. Findings of one rule
// with the same category, severity, owner and parameters are merged into
// one finding listing every subject: a 512-rank job gets one NCCL-timeout
// finding naming 511 pods, not 511 findings.
func assemble(e *policy.Engine, job *evidence.Job, raw []policy.RawFinding) []report.Finding {
	type group struct {
		f     report.Finding
		seen  map[string]bool
		subjs map[string]bool
		more  int
	}
	var order []string
	groups := map[string]*group{}
	for i := range raw {
		rf := &raw[i]
		rule := e.RuleOf(rf)
		category := first(rf.Category, rule.Category)
		layer := e.Categories()[category]
		if layer == "" {
			// An unknown category in a per-finding override falls back to
			// the rule's own.
			category, layer = rule.Category, rule.Layer
		}
		severity := first(rf.Severity, rule.Severity)
		if !report.ValidSeverity(severity) {
			severity = rule.Severity
		}
		owner := first(rf.Owner, rule.Owner)
		params := rf.Params
		pj, _ := json.Marshal(params)
		key := rule.ID + "\x00" + category + "\x00" + severity + "\x00" + owner + "\x00" + string(pj)
		g := groups[key]
		if g == nil {
			sum := sha256.Sum256([]byte(job.Kind + "/" + job.Namespace + "/" + job.Name + "\x00" + key))
			g = &group{
				f: report.Finding{
					ID: rule.ID + "-" + hex.EncodeToString(sum[:4]), Rule: rule.ID,
					Category: category, Layer: layer, Severity: severity, Owner: owner,
					Title: rule.Title, Message: rule.RenderMessage(params), Remediation: rule.Remediation,
					Params: params, Evidence: []report.Evidence{},
				},
				seen: map[string]bool{}, subjs: map[string]bool{},
			}
			groups[key] = g
			order = append(order, key)
		}
		if rf.Subject != nil {
			var s report.Subject
			if json.Unmarshal(*rf.Subject, &s) == nil && s.Name != "" {
				sk := s.Kind + "/" + s.Name + "/" + s.Container
				if !g.subjs[sk] {
					g.subjs[sk] = true
					g.f.Subjects = append(g.f.Subjects, s)
				}
			}
		}
		var evs []report.Evidence
		_ = json.Unmarshal(rf.Evidence, &evs)
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
	return out
}

func first(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
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
