package diagnose

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/report"
)

// causalSlack lets a cause be logged slightly after its effect: clocks of
// different nodes drift, and a kernel Xid line can trail the CUDA error
// it caused.
const causalSlack = 60 * time.Second

// Layer order among independent root causes of equal severity: hardware
// and node problems first, then what the spec makes impossible, then the
// control plane, then the program, then progress symptoms.
var layerOrder = map[string]int{"node": 0, "spec": 1, "control": 2, "execution": 3, "progress": 4}

// explainer answers whether a category can explain another; the policy
// engine does, from the taxonomy and the rules' METADATA.
type explainer interface {
	Explains(cause, effect string) bool
	Fallback(category string) bool
}

// choosePrimary picks the job's primary finding and marks consequences.
//
// The mechanism is general and lives in data, not in Go: the taxonomy's
// `explains` relation (plus each rule's custom.explains) says which
// categories can cause which. Finding A explains finding B when A's
// category explains B's and A was not first seen later than B (within
// causalSlack). The roots are the findings nothing explains; the primary
// is the root with the highest severity, then the earliest layer, then the
// earliest first evidence. Every explained finding records which finding
// explains it, preferring the primary. A job with no finding at warning or
// above is healthy, and its primary is the healthy finding; an unhealthy
// job reports no healthy finding.
func choosePrimary(e explainer, j *report.Job) {
	fs := j.Findings
	explains := func(a, b int) bool {
		if a == b || fs[a].Category == fs[b].Category || !e.Explains(fs[a].Category, fs[b].Category) {
			return false
		}
		ta, okA := parseTime(fs[a].FirstSeen)
		tb, okB := parseTime(fs[b].FirstSeen)
		return !okA || !okB || !ta.After(tb.Add(causalSlack))
	}
	var roots []int
	for i := range fs {
		if fs[i].Category == report.CategoryHealthy {
			continue
		}
		explained := false
		for k := range fs {
			if fs[k].Category != report.CategoryHealthy && explains(k, i) && !(explains(i, k) && before(fs[i].FirstSeen, fs[k].FirstSeen)) {
				explained = true
				break
			}
		}
		if !explained {
			roots = append(roots, i)
		}
	}
	sort.SliceStable(roots, func(a, b int) bool { return rootLess(&fs[roots[a]], &fs[roots[b]]) })

	j.Healthy = true
	for i := range fs {
		if fs[i].Category != report.CategoryHealthy && report.SeverityRank(fs[i].Severity) >= report.SeverityRank(report.SeverityWarning) {
			j.Healthy = false
		}
	}
	primary := -1
	switch {
	case !j.Healthy && len(roots) > 0:
		primary = roots[0]
	case j.Healthy:
		for i := range fs {
			if fs[i].Category == report.CategoryHealthy {
				primary = i
			}
		}
		if primary < 0 && len(roots) > 0 {
			primary = roots[0]
		}
	default:
		// Every finding explains another (a cycle with no times): fall
		// back to the same ordering over all findings.
		idx := make([]int, 0, len(fs))
		for i := range fs {
			if fs[i].Category != report.CategoryHealthy {
				idx = append(idx, i)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return rootLess(&fs[idx[a]], &fs[idx[b]]) })
		primary = idx[0]
	}
	for i := range fs {
		if i == primary || fs[i].Category == report.CategoryHealthy {
			continue
		}
		cause := -1
		if primary >= 0 && explains(primary, i) {
			cause = primary
		} else {
			for k := range fs {
				if explains(k, i) && !(explains(i, k) && before(fs[i].FirstSeen, fs[k].FirstSeen)) {
					cause = k
					break
				}
			}
		}
		if cause >= 0 {
			fs[i].Consequence, fs[i].CausedBy = true, fs[cause].ID
		}
	}
	if primary >= 0 {
		p := fs[primary]
		j.Primary = &p
	} else {
		j.Primary = noFinding()
	}
	// Fallback findings ("no more specific cause found") that something
	// explains are not reported at all, nor is a healthy finding on a job
	// that is not healthy: it would contradict the verdict.
	kept := fs[:0]
	for _, f := range fs {
		if (f.Consequence && e.Fallback(f.Category)) || (!j.Healthy && f.Category == report.CategoryHealthy) {
			continue
		}
		kept = append(kept, f)
	}
	fs = kept
	j.Findings = fs
	// Findings read primary first, then by severity and time.
	pid := j.Primary.ID
	sort.SliceStable(fs, func(a, b int) bool {
		if (fs[a].ID == pid) != (fs[b].ID == pid) {
			return fs[a].ID == pid
		}
		if fs[a].Consequence != fs[b].Consequence {
			return !fs[a].Consequence
		}
		if ra, rb := report.SeverityRank(fs[a].Severity), report.SeverityRank(fs[b].Severity); ra != rb {
			return ra > rb
		}
		if fs[a].FirstSeen != fs[b].FirstSeen {
			return before(fs[a].FirstSeen, fs[b].FirstSeen)
		}
		return fs[a].ID < fs[b].ID
	})
}

func rootLess(a, b *report.Finding) bool {
	if ra, rb := report.SeverityRank(a.Severity), report.SeverityRank(b.Severity); ra != rb {
		return ra > rb
	}
	if la, lb := layerOrder[a.Layer], layerOrder[b.Layer]; la != lb {
		return la < lb
	}
	if a.FirstSeen != b.FirstSeen {
		return before(a.FirstSeen, b.FirstSeen)
	}
	return a.ID < b.ID
}

// noFinding is the primary of a job no rule said anything about.
func noFinding() *report.Finding {
	return &report.Finding{
		ID: "healthy-none", Rule: "none", Category: report.CategoryHealthy, Layer: "control",
		Severity: report.SeverityInfo, Owner: report.OwnerUser,
		Title:       report.Text{En: "No problem found", Zh: "未发现问题"},
		Message:     report.Text{En: "No rule found anything wrong with this job.", Zh: "没有规则发现该作业有问题。"},
		Remediation: report.Text{En: "Nothing to do.", Zh: "无需处理。"},
		Evidence:    []report.Evidence{},
	}
}

// summary is the one-line reading of the job: the origin, then how the
// other findings group under it, e.g. "pod w-4 (rank 37): CUDA out of
// memory; 63 pods: NCCL timeout (consequence)".
func summary(j *report.Job) report.Text {
	p := j.Primary
	if j.Healthy {
		return report.Text{En: p.Title.En, Zh: p.Title.Zh}
	}
	en := []string{subjectsText(p.Subjects, "en") + p.Title.En}
	zh := []string{subjectsText(p.Subjects, "zh") + p.Title.Zh}
	extra := 0
	for i := range j.Findings {
		f := &j.Findings[i]
		if f.ID == p.ID || f.Category == report.CategoryHealthy {
			continue
		}
		if len(en) >= 4 {
			extra++
			continue
		}
		if f.Consequence {
			en = append(en, subjectsText(f.Subjects, "en")+f.Title.En+" (consequence)")
			zh = append(zh, subjectsText(f.Subjects, "zh")+f.Title.Zh+"（后果）")
		} else {
			en = append(en, "also: "+subjectsText(f.Subjects, "en")+f.Title.En)
			zh = append(zh, "另有："+subjectsText(f.Subjects, "zh")+f.Title.Zh)
		}
	}
	if extra > 0 {
		en = append(en, fmt.Sprintf("%d more", extra))
		zh = append(zh, fmt.Sprintf("另有 %d 项", extra))
	}
	return report.Text{En: strings.Join(en, "; "), Zh: strings.Join(zh, "；")}
}

func subjectsText(ss []report.Subject, lang string) string {
	pods := map[string]bool{}
	for _, s := range ss {
		pods[s.Kind+"/"+s.Name] = true
	}
	switch {
	case len(ss) == 0:
		return ""
	case len(pods) == 1:
		s := ss[0]
		name := strings.ToLower(s.Kind) + " " + s.Name
		if lang == "zh" {
			name = s.Kind + " " + s.Name
		}
		if s.Rank != nil {
			name += fmt.Sprintf(" (rank %d)", *s.Rank)
		}
		return name + ": "
	case lang == "zh":
		return fmt.Sprintf("%d 个对象：", len(pods))
	default:
		return fmt.Sprintf("%d %ss: ", len(pods), strings.ToLower(ss[0].Kind))
	}
}
