package diagnose

import (
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/traindoc/traindoc/engine/report"
)

// causalSlack lets a cause be logged slightly after its effect: clocks of
// different nodes drift, and a kernel Xid line can trail the CUDA error
// it caused.
const causalSlack = 60 * time.Second

// taxonomy answers what the policies say about categories; the policy
// engine does, from the taxonomy and the rules' METADATA.
type taxonomy interface {
	Explains(cause, effect string) bool
	Fallback(category string) bool
	JobFallback(category string) bool
	NoCause(category string) bool
	Risk(category string) bool
	Held(category string) bool
	RootRank(layer string) int
	Retryable(category string) bool
}

// causality is one job's findings with the causal relation applied to
// them. Finding k causes finding i when k's category explains i's, k was
// not first seen later than i (within causalSlack), and i does not equally
// explain k from earlier: of two findings that explain each other, the
// earlier one is the cause.
type causality struct {
	tax taxonomy
	fs  []report.Finding
}

// explains says whether finding a's category explains b's and a was not
// first seen later than b (within causalSlack).
func (c *causality) explains(a, b int) bool {
	fs := c.fs
	// A category explains its own kind only where the taxonomy says so (a
	// kill from outside on one pod, then the teardown's SIGTERM on the
	// others); the earlier one is then the cause.
	if a == b || !c.tax.Explains(fs[a].Category, fs[b].Category) {
		return false
	}
	ta, okA := parseTime(fs[a].FirstSeen)
	tb, okB := parseTime(fs[b].FirstSeen)
	return !okA || !okB || !ta.After(tb.Add(causalSlack))
}

// causes is the one home of the mutual-explanation rule: k causes i when
// k explains i, unless i explains k too and was seen first.
func (c *causality) causes(k, i int) bool {
	return c.explains(k, i) && !(c.explains(i, k) && before(c.fs[i].FirstSeen, c.fs[k].FirstSeen))
}

// fault says whether finding i is an observed fault that counts: not the
// healthy verdict, not a risk, not an acknowledged known issue.
func (c *causality) fault(i int) bool {
	return c.fs[i].Category != report.CategoryHealthy && !c.tax.Risk(c.fs[i].Category) && !c.fs[i].Acknowledged
}

// held says whether finding i is a hold someone put on the job
// (suspended, debug mode): not a fault, but the cause of what follows.
func (c *causality) held(i int) bool {
	return c.tax.Held(c.fs[i].Category) && !c.fs[i].Acknowledged
}

// cause says whether finding k can be the cause of another: a fault or a
// hold.
func (c *causality) cause(k int) bool { return c.fault(k) || c.held(k) }

// causeOf returns the fault or hold that causes finding i, preferring
// prefer, or -1.
func (c *causality) causeOf(i, prefer int) int {
	if prefer >= 0 && c.cause(prefer) && c.causes(prefer, i) {
		return prefer
	}
	for k := range c.fs {
		if c.cause(k) && c.causes(k, i) {
			return k
		}
	}
	return -1
}

// rootOf follows causes from finding i to the finding nothing causes.
func (c *causality) rootOf(i int) int {
	for range c.fs {
		k := c.causeOf(i, -1)
		if k < 0 || k == i {
			return i
		}
		i = k
	}
	return i
}

// riskCauseOf returns the risk that explains finding i, or -1: a risk that
// came true is shown as the cause of the fault it predicted.
func (c *causality) riskCauseOf(i int) int {
	for k := range c.fs {
		if c.tax.Risk(c.fs[k].Category) && c.explains(k, i) {
			return k
		}
	}
	return -1
}

// root says whether finding i is a fault no other fault or hold causes.
func (c *causality) root(i int) bool { return c.fault(i) && c.causeOf(i, -1) < 0 }

// best returns the best of the findings for which keep holds, or -1.
func (c *causality) best(keep func(int) bool) int {
	var idx []int
	for i := range c.fs {
		if keep(i) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	sort.SliceStable(idx, func(a, b int) bool { return c.less(&c.fs[idx[a]], &c.fs[idx[b]]) })
	return idx[0]
}

// less orders candidate primaries: highest severity, then the taxonomy's
// root order of layers, then the earliest first evidence.
func (c *causality) less(a, b *report.Finding) bool {
	if ra, rb := report.SeverityRank(a.Severity), report.SeverityRank(b.Severity); ra != rb {
		return ra > rb
	}
	if la, lb := c.tax.RootRank(a.Layer), c.tax.RootRank(b.Layer); la != lb {
		return la < lb
	}
	if a.FirstSeen != b.FirstSeen {
		return before(a.FirstSeen, b.FirstSeen)
	}
	return a.ID < b.ID
}

// choosePrimary decides a job's verdict and primary finding and marks
// consequences. Everything case-specific is data (the taxonomy and each
// rule's custom.explains); this is the mechanism:
//
//  1. Job-level fallbacks ("the job failed and no rule says why") are
//     dropped when the job has another fault at warning or above that
//     names a cause (a bare exit code does not).
//  2. The verdict: a job is unhealthy when it has a fault (not a risk,
//     not the healthy finding, not acknowledged) at warning or above that
//     does not follow from a hold; else held when someone holds it
//     (suspended, debug mode); else healthy.
//  3. The primary of an unhealthy job is its best root fault; of a held
//     job, the hold; of a healthy job, the healthy finding. Risks are
//     never the primary.
//  4. Every other fault caused by a fault is a consequence of it,
//     preferably of the primary; a fault a risk predicted names that risk
//     as its cause. Explained fallbacks are dropped.
func choosePrimary(tax taxonomy, j *report.Job) {
	dropJobFallbacks(tax, j)
	c := &causality{tax: tax, fs: j.Findings}
	for i := range c.fs {
		c.fs[i].Risk = tax.Risk(c.fs[i].Category)
	}
	j.State = c.verdict()
	j.Healthy = j.State == report.StateHealthy
	primary := pickPrimary(c, j.State)
	c.markConsequences(primary)
	if primary >= 0 {
		p := c.fs[primary]
		j.Primary = &p
	} else {
		j.Primary = noFinding()
	}
	j.Retryable = !j.Healthy && tax.Retryable(j.Primary.Category) &&
		(j.Primary.Retryable == nil || *j.Primary.Retryable)
	j.Findings = c.reported(j.Healthy)
	sortFindings(j.Findings, j.Primary.ID)
}

// atLeastWarning says whether a finding of severity s is bad enough to
// decide a verdict or to name a cause.
func atLeastWarning(s string) bool {
	return report.SeverityRank(s) >= report.SeverityRank(report.SeverityWarning)
}

// verdict is step 2: unhealthy when a fault at warning or above does not
// follow from a hold; else held when someone holds the job; else healthy.
func (c *causality) verdict() string {
	for i := range c.fs {
		if c.fault(i) && atLeastWarning(c.fs[i].Severity) && !c.held(c.rootOf(i)) {
			return report.StateUnhealthy
		}
	}
	for i := range c.fs {
		if c.held(i) {
			return report.StateHeld
		}
	}
	return report.StateHealthy
}

// markConsequences is step 4: every fault or hold another one causes
// becomes its consequence, preferably the primary's; one a risk predicted
// names the risk as its cause without becoming a consequence.
func (c *causality) markConsequences(primary int) {
	for i := range c.fs {
		if !c.cause(i) {
			continue
		}
		if k := c.causeOf(i, primary); k >= 0 && i != primary {
			c.fs[i].Consequence, c.fs[i].CausedBy = true, c.fs[k].ID
		} else if k := c.riskCauseOf(i); k >= 0 {
			c.fs[i].CausedBy = c.fs[k].ID
		}
	}
}

// reported drops what the report must not show: fallback findings ("no
// more specific cause found") that something explains, and a healthy
// finding on a job that is not healthy, which would contradict the
// verdict. It reuses the findings' backing array.
func (c *causality) reported(healthy bool) []report.Finding {
	kept := c.fs[:0]
	for _, f := range c.fs {
		if (f.Consequence && c.tax.Fallback(f.Category)) || (!healthy && f.Category == report.CategoryHealthy) {
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// dropJobFallbacks is step 1: it removes job-level fallback findings when
// the job has another fault at warning or above that names a cause.
func dropJobFallbacks(tax taxonomy, j *report.Job) {
	namesCause := func(f report.Finding) bool {
		return f.Category != report.CategoryHealthy && !tax.Risk(f.Category) && !tax.JobFallback(f.Category) &&
			!tax.NoCause(f.Category) && !f.Acknowledged && atLeastWarning(f.Severity)
	}
	if !slices.ContainsFunc(j.Findings, namesCause) {
		return
	}
	j.Findings = slices.DeleteFunc(j.Findings, func(f report.Finding) bool { return tax.JobFallback(f.Category) })
}

// pickPrimary is step 3: the best root fault of an unhealthy job, the
// best hold of a held job, the healthy finding of a healthy one.
func pickPrimary(c *causality, state string) int {
	switch state {
	case report.StateHealthy:
		if i := slices.IndexFunc(c.fs, func(f report.Finding) bool { return f.Category == report.CategoryHealthy }); i >= 0 {
			return i
		}
	case report.StateHeld:
		return c.best(c.held)
	}
	if i := c.best(c.root); i >= 0 {
		return i
	}
	// Every fault is caused by another (a cycle with no times): take the
	// best fault.
	return c.best(c.fault)
}

// sortFindings orders findings as reports read them: the primary, the
// other root faults by severity and time, their consequences, then the
// risks.
func sortFindings(fs []report.Finding, primaryID string) {
	group := func(f *report.Finding) int {
		switch {
		case f.ID == primaryID:
			return 0
		case f.Risk, f.Acknowledged:
			return 3
		case f.Consequence:
			return 2
		}
		return 1
	}
	sort.SliceStable(fs, func(a, b int) bool {
		if ga, gb := group(&fs[a]), group(&fs[b]); ga != gb {
			return ga < gb
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

// summaryClauses bounds the summary: the primary and three more clauses,
// then a count of the rest.
const summaryClauses = 4

// summary is the one-line reading of the job: the origin, then how the
// other findings group under it, e.g. "pod w-4 (rank 37): CUDA out of
// memory; 63 pods: NCCL timeout (consequence)". It is built as data
// (j.SummaryParts, translated by renderers) and returned rendered in every
// language for the JSON's readers.
func summary(j *report.Job) report.Text {
	p := j.Primary
	var parts []report.Part
	if j.Healthy {
		parts = append(parts, report.Part{Role: report.RoleHealthy, Key: "engine.summary.subject.none", Finding: p.ID})
	} else {
		parts = append(parts, subjectsPart(report.RolePrimary, p))
		extra := 0
		for i := range j.Findings {
			f := &j.Findings[i]
			if f.ID == p.ID || f.Category == report.CategoryHealthy {
				continue
			}
			if len(parts) >= summaryClauses {
				extra++
				continue
			}
			role := report.RoleAlso
			if f.Consequence {
				role = report.RoleConsequence
			}
			parts = append(parts, subjectsPart(role, f))
		}
		if extra > 0 {
			parts = append(parts, report.Part{Role: report.RoleMore, Key: "engine.summary.more", Params: map[string]string{"n": strconv.Itoa(extra)}})
		}
	}
	j.SummaryParts = parts
	return report.Text{En: j.SummaryIn("en"), Zh: j.SummaryIn("zh")}
}

// subjectsPart names where a finding happened: one object by name (with
// its rank), or how many objects of a kind.
func subjectsPart(role string, f *report.Finding) report.Part {
	part := report.Part{Role: role, Finding: f.ID, Key: "engine.summary.subject.none"}
	objs := map[string]bool{}
	for _, s := range f.Subjects {
		objs[s.Kind+"/"+s.Name] = true
	}
	ss := f.Subjects
	switch {
	case len(ss) == 0:
	case len(objs) == 1:
		s := ss[0]
		part.Params = map[string]string{"kind": s.Kind, "name": s.Name}
		switch s.Kind {
		case "Pod":
			part.Key = "engine.summary.subject.pod"
			if s.Rank != nil {
				part.Key = "engine.summary.subject.pod_rank"
				part.Params["rank"] = strconv.Itoa(*s.Rank)
			}
		case "Node":
			part.Key = "engine.summary.subject.node"
		default:
			part.Key = "engine.summary.subject.other"
		}
	default:
		part.Params = map[string]string{"n": strconv.Itoa(len(objs)), "kind": ss[0].Kind}
		switch ss[0].Kind {
		case "Pod":
			part.Key = "engine.summary.subjects.pod"
		case "Node":
			part.Key = "engine.summary.subjects.node"
		default:
			part.Key = "engine.summary.subjects.other"
		}
	}
	return part
}
