package site

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

// run builds a report taken at t with the given jobs.
func run(t string, jobs ...report.Job) *report.Report {
	return &report.Report{SchemaVersion: report.SchemaVersion, CollectedAt: t, Jobs: jobs}
}

// failing is an unhealthy job whose rule fired on pods that ran on nodes.
func failing(ns, name, rule string, nodes ...string) report.Job {
	f := report.Finding{ID: rule + "-1", Rule: rule, Category: "exec.cuda-oom", Severity: "error"}
	j := report.Job{Kind: "PyTorchJob", Namespace: ns, Name: name, Primary: &f, Findings: []report.Finding{f}}
	for i, n := range nodes {
		j.Pods = append(j.Pods, report.Pod{Name: name + "-" + string(rune('a'+i)), Node: n, Failing: true})
	}
	return j
}

func healthy(ns, name string, nodes ...string) report.Job {
	f := report.Finding{ID: "ok", Rule: "control-healthy", Category: report.CategoryHealthy, Severity: "info"}
	j := report.Job{Kind: "PyTorchJob", Namespace: ns, Name: name, Healthy: true, Primary: &f, Findings: []report.Finding{f}}
	for _, n := range nodes {
		j.Pods = append(j.Pods, report.Pod{Name: name + "-0", Node: n})
	}
	return j
}

// A hot node ran failing pods of two or more different jobs; one job
// failing on a node in every run makes no hot node, nor does a node that
// only ran healthy or held jobs beside one failing job.
func TestHotNodesCountJobsOnce(t *testing.T) {
	suspended := failing("ml", "paused", "job-suspended", "n3")
	suspended.Primary.Category, suspended.Findings[0].Category = "job.suspended", "job.suspended"
	runs := []*report.Report{
		run("2026-01-01T00:00:00Z", failing("ml", "a", "r", "n1", "n2"), healthy("ml", "h", "n3")),
		run("2026-01-02T00:00:00Z", failing("ml", "a", "r", "n1"), failing("ml", "c", "r", "n3"), suspended),
		run("2026-01-03T00:00:00Z", failing("ml", "a", "r", "n1"), failing("ml", "b", "r", "n2")),
	}
	hot := hotNodes(runs)
	if len(hot) != 1 || hot[0].Name != "n2" || !slices.Equal(hot[0].Jobs, []string{"ml/a", "ml/b"}) || hot[0].Runs != 2 {
		t.Errorf("hot nodes = %+v, want only n2 with ml/a and ml/b in 2 runs", hot)
	}
}

// Runs are placed by when they were taken: a gap shows as a gap.
func TestTimeAxis(t *testing.T) {
	pts := []runPoint{{Time: "2026-01-01T00:00:00Z"}, {Time: "2026-01-01T01:00:00Z"}, {Time: "2026-01-01T10:00:00Z"}}
	xs := timeX(pts)
	first, second, last := xs[0], xs[1], xs[2]
	if d1, d2 := second-first, last-second; d2 < 8*d1 || d2 > 10*d1 {
		t.Errorf("x = %v: a 9-hour gap is not 9 times a 1-hour gap", xs)
	}
	labels := axisLabels([]runPoint{{Label: "a"}, {Label: "b"}, {Label: "c"}}, []float64{60, 65, 600})
	if len(labels) != 2 || labels[0].Text != "a" || labels[1].Text != "c" {
		t.Errorf("overlapping labels are not thinned: %+v", labels)
	}
}

// The shares are rates, and held jobs are not failures.
func TestRatesNotCounts(t *testing.T) {
	held := failing("ml", "dbg", "job-debug-mode")
	held.Primary.Category, held.Findings[0].Category = "job.debug-mode", "job.debug-mode"
	tr := buildTrends([]*report.Report{
		run("2026-01-01T00:00:00Z", failing("ml", "a", "r"), healthy("ml", "b"), healthy("ml", "c"), held),
		run("2026-01-02T00:00:00Z", failing("ml", "a", "r"), failing("ml", "b", "r")),
	})
	if r := tr.Runs[0]; r.Unhealthy != 1 || r.Held != 1 || r.Rate != 25 {
		t.Errorf("run 0 = %+v, want 1 of 4 failing (25%%) and 1 held", r)
	}
	if tr.Runs[1].Rate != 100 {
		t.Errorf("run 1 rate = %v, want 100", tr.Runs[1].Rate)
	}
	if got := tr.Table[0].Rates; !slices.Equal(got, []string{"25%", "100%"}) {
		t.Errorf("category rates = %v", got)
	}
	if ns := tr.Namespaces; len(ns) != 1 || ns[0].Rate != "100%" || ns[0].PrevRate != "25%" || ns[0].Delta != 1 {
		t.Errorf("namespace roll-up = %+v", ns)
	}
}

// Each failure of the latest run is new or recurring (with its streak),
// and each of the previous run that is gone is resolved.
func TestChangesSincePreviousRun(t *testing.T) {
	runs := []*report.Report{
		run("2026-01-01T00:00:00Z", failing("ml", "a", "r1"), failing("ml", "gone", "r1")),
		run("2026-01-02T00:00:00Z", failing("ml", "a", "r1"), failing("ml", "fixed", "r1")),
		run("2026-01-03T00:00:00Z", failing("ml", "a", "r1"), failing("ml", "b", "r2"), healthy("ml", "fixed")),
	}
	got := map[string]change{}
	for _, c := range changes(runs) {
		got[c.JobKey] = c
	}
	if c := got["ml/a"]; c.Status != statusRecurring || c.Streak != 3 || c.Since != "2026-01-01T00:00:00Z" {
		t.Errorf("ml/a = %+v, want recurring for 3 runs since the first", c)
	}
	if c := got["ml/b"]; c.Status != statusNew {
		t.Errorf("ml/b = %+v, want new", c)
	}
	if c := got["ml/fixed"]; c.Status != statusResolved {
		t.Errorf("ml/fixed = %+v, want resolved", c)
	}
	if _, ok := got["ml/gone"]; ok {
		t.Error("a failure two runs back counts against the latest run")
	}
}

// A site built from absolute snapshot and policy paths names neither:
// only the folders' own names appear.
func TestNoMachinePaths(t *testing.T) {
	snap, err := filepath.Abs(filepath.Join("..", "fixtures", "malformed-file"))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := filepath.Abs(filepath.Join("testdata", "policies"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := collectSnapshots(context.Background(), nil, []string{snap, filepath.Join("..", "fixtures", "exec-cuda-oom")}, []string{pol})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("..")
	for _, p := range files.Paths() {
		for _, bad := range []string{root, snap, pol} {
			if strings.Contains(string(files[p]), bad) {
				t.Errorf("%s holds the machine path %s", p, bad)
			}
		}
	}
	if !strings.Contains(string(files["en/rules/site-ckpt-throttled.html"]), "policies/ckpt_throttled.rego") {
		t.Error("the user rule's file is not named relative to its folder")
	}
	if !strings.Contains(string(files["en/rules/exec-cuda-oom.html"]), "policies/rules/exec/cuda_oom/cuda_oom.rego") {
		t.Error("the built-in rule's file is not named relative to the repository")
	}
}
