package diagnose

import (
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

// relation is a causal relation for tests: cause -> effects. The other
// taxonomy answers mirror the built-in taxonomy's data.
type relation map[string][]string

func (relation) Fallback(category string) bool    { return category == "job.pending-too-long" }
func (relation) JobFallback(category string) bool { return category == "job.unexplained-failure" }
func (relation) Risk(category string) bool        { return category == "spec.no-shm" }
func (relation) NoCause(category string) bool     { return category == "exec.nonzero-exit" }
func (relation) Held(category string) bool {
	return category == "job.suspended" || category == "job.debug-mode"
}
func (relation) Retryable(category string) bool { return category == "exec.nccl-timeout" }
func (relation) RootRank(layer string) int {
	return slices.Index([]string{"node", "spec", "control", "execution", "progress"}, layer)
}

func (r relation) Explains(cause, effect string) bool {
	for _, e := range r[cause] {
		if e == effect {
			return true
		}
	}
	return false
}

var testRelation = relation{
	"exec.cuda-oom":           {"exec.nccl-timeout", "exec.killed", "job.backoff-exceeded"},
	"node.gpu-hardware":       {"exec.segfault", "exec.nccl-error", "exec.cuda-oom"},
	"sched.insufficient-gpu":  {"job.pending-too-long"},
	"spec.no-shm":             {"exec.shm-exhausted"},
	"exec.shm-exhausted":      {"job.backoff-exceeded"},
	"job.unexplained-failure": {"exec.nonzero-exit"},
	"job.debug-mode":          {"progress.gpu-idle"},
}

func f(id, category, layer, severity, firstSeen string, pods ...string) report.Finding {
	fd := report.Finding{ID: id, Rule: id, Category: category, Layer: layer, Severity: severity, FirstSeen: firstSeen,
		Title: report.Text{En: category, Zh: category}}
	for _, p := range pods {
		fd.Subjects = append(fd.Subjects, report.Subject{Kind: "Pod", Name: p})
	}
	return fd
}

func TestChoosePrimary(t *testing.T) {
	cases := []struct {
		name        string
		findings    []report.Finding
		primary     string
		healthy     bool
		consequence map[string]string // id -> causedBy
		causedBy    map[string]string // id -> causedBy of findings that are not consequences
		kept        []string          // every finding left, when the case checks it
		retryable   bool
	}{
		{
			name: "origin rank before the cascade",
			findings: []report.Finding{
				f("timeout", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:10:00Z", "w0", "w1", "w2"),
				f("oom", "exec.cuda-oom", "execution", "error", "2026-03-01T10:00:00Z", "w3"),
				f("backoff", "job.backoff-exceeded", "control", "error", "2026-03-01T10:20:00Z"),
			},
			primary:     "oom",
			consequence: map[string]string{"timeout": "oom", "backoff": "oom"},
		},
		{
			name: "a cause seen long after the effect does not explain it",
			findings: []report.Finding{
				f("timeout", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
				f("oom", "exec.cuda-oom", "execution", "error", "2026-03-01T11:00:00Z", "w3"),
			},
			primary:   "timeout",
			retryable: true,
		},
		{
			name: "a rule can say a finding of a retryable category is one a restart repeats",
			findings: []report.Finding{
				func() report.Finding {
					x := f("mismatch", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:00:00Z", "w0")
					no := false
					x.Retryable = &no
					return x
				}(),
			},
			primary:   "mismatch",
			retryable: false,
		},
		{
			name: "within the clock slack the cause still explains",
			findings: []report.Finding{
				f("segv", "exec.segfault", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
				f("xid", "node.gpu-hardware", "node", "critical", "2026-03-01T10:00:30Z", "w0"),
			},
			primary:     "xid",
			consequence: map[string]string{"segv": "xid"},
		},
		{
			name: "hardware explains the OOM it caused, transitively first",
			findings: []report.Finding{
				f("oom", "exec.cuda-oom", "execution", "error", "2026-03-01T10:01:00Z", "w1"),
				f("xid", "node.gpu-hardware", "node", "critical", "2026-03-01T10:00:00Z", "w1"),
				f("timeout", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:11:00Z", "w0"),
			},
			primary:     "xid",
			consequence: map[string]string{"oom": "xid", "timeout": "oom"},
		},
		{
			name: "independent roots: severity first, then layer",
			findings: []report.Finding{
				f("replicas", "job.replica-mismatch", "control", "warning", ""),
				f("oom", "exec.cuda-oom", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
			},
			primary: "oom",
		},
		{
			name: "a risk is never the primary while the job has a fault, even an earlier-layer risk",
			findings: []report.Finding{
				f("shm", "spec.no-shm", "spec", "warning", ""),
				f("stall", "progress.stalled", "progress", "warning", "2026-03-01T10:00:00Z"),
			},
			primary: "stall",
		},
		{
			name: "a job whose only problem is a risk is healthy, with the risk as an advisory",
			findings: []report.Finding{
				f("ok", "healthy", "control", "info", ""),
				f("shm", "spec.no-shm", "spec", "warning", ""),
			},
			primary: "ok",
			healthy: true,
			kept:    []string{"ok", "shm"},
		},
		{
			name: "a risk that came true is the cause of the fault it predicted, which stays the primary",
			findings: []report.Finding{
				f("shm", "spec.no-shm", "spec", "warning", ""),
				f("bus", "exec.shm-exhausted", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
				f("backoff", "job.backoff-exceeded", "control", "error", "2026-03-01T10:05:00Z"),
			},
			primary:     "bus",
			consequence: map[string]string{"backoff": "bus"},
			causedBy:    map[string]string{"bus": "shm"},
			retryable:   false,
		},
		{
			name: "a job-level fallback is dropped when another fault names a cause",
			findings: []report.Finding{
				f("unexplained", "job.unexplained-failure", "control", "error", "2026-03-01T10:00:00Z"),
				f("oom", "exec.cuda-oom", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
			},
			primary: "oom",
			kept:    []string{"oom"},
		},
		{
			name: "a bare exit code names no cause: the failure stays unexplained",
			findings: []report.Finding{
				f("unexplained", "job.unexplained-failure", "control", "error", "2026-03-01T10:00:00Z", "w0"),
				f("exit", "exec.nonzero-exit", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
			},
			primary:     "unexplained",
			kept:        []string{"unexplained", "exit"},
			consequence: map[string]string{"exit": "unexplained"},
		},
		{
			name: "a job-level fallback alone is the primary of an unhealthy job",
			findings: []report.Finding{
				f("unexplained", "job.unexplained-failure", "control", "error", "2026-03-01T10:00:00Z"),
				f("shm", "spec.no-shm", "spec", "warning", ""),
			},
			primary: "unexplained",
			kept:    []string{"unexplained", "shm"},
		},
		{
			name: "a retryable primary makes the job retryable",
			findings: []report.Finding{
				f("timeout", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:10:00Z", "w0"),
			},
			primary:   "timeout",
			retryable: true,
		},
		{
			name: "equal severity: the earlier layer wins",
			findings: []report.Finding{
				f("oom", "exec.cuda-oom", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
				f("gpu", "sched.insufficient-gpu", "control", "error", "2026-03-01T11:00:00Z", "w1"),
			},
			primary: "gpu",
		},
		{
			name: "only info findings and a healthy one: healthy",
			findings: []report.Finding{
				f("ok", "healthy", "control", "info", ""),
				f("note", "progress.checkpoint-stale", "progress", "info", ""),
			},
			primary: "ok",
			healthy: true,
		},
		{
			name: "a hold is its own state, and what follows from it does not make the job unhealthy",
			findings: []report.Finding{
				f("debug", "job.debug-mode", "control", "info", "2026-03-01T09:00:00Z"),
				f("idle", "progress.gpu-idle", "progress", "warning", "2026-03-01T10:00:00Z"),
			},
			primary:     "debug",
			consequence: map[string]string{"idle": "debug"},
		},
		{
			name:     "no findings at all",
			findings: nil,
			primary:  "healthy-none",
			healthy:  true,
		},
		{
			name: "an explained fallback finding is dropped",
			findings: []report.Finding{
				f("pending", "job.pending-too-long", "control", "warning", "2026-03-01T09:00:00Z"),
				f("gpu", "sched.insufficient-gpu", "control", "error", "2026-03-01T08:00:00Z", "w0"),
			},
			primary: "gpu",
		},
		{
			name: "unhealthy even when the healthy rule fired",
			findings: []report.Finding{
				f("ok", "healthy", "control", "info", ""),
				f("pending", "job.pending-too-long", "control", "warning", "2026-03-01T09:00:00Z"),
			},
			primary: "pending",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := &report.Job{Findings: tc.findings}
			choosePrimary(testRelation, j)
			if j.Primary == nil || j.Primary.ID != tc.primary {
				t.Fatalf("primary = %+v, want %s", j.Primary, tc.primary)
			}
			if j.Healthy != tc.healthy {
				t.Errorf("healthy = %v, want %v", j.Healthy, tc.healthy)
			}
			if (tc.name == "an explained fallback finding is dropped" || tc.name == "unhealthy even when the healthy rule fired") && len(j.Findings) != 1 {
				t.Errorf("findings = %+v, want the fallback dropped", j.Findings)
			}
			if len(j.Findings) > 0 && j.Findings[0].ID != tc.primary {
				t.Errorf("first finding = %s, want the primary first", j.Findings[0].ID)
			}
			for _, fd := range j.Findings {
				want, isConsequence := tc.consequence[fd.ID]
				if !isConsequence {
					want = tc.causedBy[fd.ID]
				}
				if fd.Consequence != isConsequence || fd.CausedBy != want {
					t.Errorf("%s: consequence=%v causedBy=%q, want %v %q", fd.ID, fd.Consequence, fd.CausedBy, isConsequence, want)
				}
				if fd.Risk != (fd.Category == "spec.no-shm") {
					t.Errorf("%s: risk=%v", fd.ID, fd.Risk)
				}
			}
			if tc.kept != nil {
				var ids []string
				for _, fd := range j.Findings {
					ids = append(ids, fd.ID)
				}
				if !slices.Equal(ids, tc.kept) {
					t.Errorf("findings = %v, want %v", ids, tc.kept)
				}
			}
			if j.Retryable != tc.retryable {
				t.Errorf("retryable = %v, want %v", j.Retryable, tc.retryable)
			}
		})
	}
}

func TestSummaryGroupsTheCascade(t *testing.T) {
	j := &report.Job{Findings: []report.Finding{
		f("timeout", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:10:00Z", "w0", "w1", "w2"),
		f("oom", "exec.cuda-oom", "execution", "error", "2026-03-01T10:00:00Z", "w3"),
	}}
	rank := 37
	j.Findings[1].Subjects[0].Rank = &rank
	choosePrimary(testRelation, j)
	s := summary(j)
	if s.En != "pod w3 (rank 37): exec.cuda-oom; 3 pods: exec.nccl-timeout (consequence)" {
		t.Errorf("summary en = %q", s.En)
	}
	if !strings.Contains(s.Zh, "（后果）") || !strings.HasPrefix(s.Zh, "Pod w3（rank 37）") {
		t.Errorf("summary zh = %q", s.Zh)
	}
	// The same reading as data: renderers translate it themselves.
	var roles, keys []string
	for _, p := range j.SummaryParts {
		roles, keys = append(roles, p.Role), append(keys, p.Key)
	}
	if want := []string{report.RolePrimary, report.RoleConsequence}; !slices.Equal(roles, want) {
		t.Errorf("summary roles = %v, want %v", roles, want)
	}
	if want := []string{"engine.summary.subject.pod_rank", "engine.summary.subjects.pod"}; !slices.Equal(keys, want) {
		t.Errorf("summary keys = %v, want %v", keys, want)
	}
	if got := j.SummaryParts[0].Params["rank"]; got != "37" {
		t.Errorf("primary part rank = %q", got)
	}
}

// A category explains its own kind only where the taxonomy says so, and
// then the earlier finding is the cause.
func TestSelfExplainingCategory(t *testing.T) {
	rel := relation{"exec.killed": {"exec.killed"}}
	j := &report.Job{Findings: []report.Finding{
		f("term", "exec.killed", "execution", "error", "2026-03-01T10:05:00Z", "node-1"),
		f("probe", "exec.killed", "execution", "error", "2026-03-01T10:00:00Z", "node-0"),
	}}
	choosePrimary(rel, j)
	if j.Primary.ID != "probe" {
		t.Fatalf("primary = %s, want the earlier kill", j.Primary.ID)
	}
	for _, fd := range j.Findings {
		if fd.ID == "term" && (!fd.Consequence || fd.CausedBy != "probe") {
			t.Errorf("the later kill = %+v, want a consequence of the first", fd)
		}
	}
	j = &report.Job{Findings: []report.Finding{
		f("t1", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:05:00Z", "w1"),
		f("t0", "exec.nccl-timeout", "execution", "error", "2026-03-01T10:00:00Z", "w0"),
	}}
	choosePrimary(rel, j)
	for _, fd := range j.Findings {
		if fd.Consequence {
			t.Errorf("%s marked a consequence of its own category without the taxonomy saying so", fd.ID)
		}
	}
}
