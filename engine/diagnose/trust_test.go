package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/adapt"
)

// A rule that fails to evaluate (here an eval_conflict_error on a
// container with a current and a previous log) becomes a warning on the
// job naming the rule and file:line; every other rule's findings stand.
func TestFailingRuleIsLocal(t *testing.T) {
	rep, err := Run(context.Background(), "../../fixtures/cascade-missing-module-crashloop",
		Options{Policies: []string{"testdata/policies/conflict"}})
	if err != nil {
		t.Fatalf("a failing rule aborted the diagnosis: %v", err)
	}
	j := onlyJob(t, rep)
	if j.Primary.Category != "exec.missing-module" {
		t.Errorf("primary = %s, want the built-in rules' exec.missing-module", j.Primary.Category)
	}
	w := strings.Join(j.Warnings, "\n")
	if !strings.Contains(w, "rule site-last-log (testdata/policies/conflict/last_log.rego:18): eval_conflict_error") {
		t.Errorf("job warnings = %q, want one naming the rule, file:line and error", j.Warnings)
	}
	if n := strings.Count(w, "rule "); n != 1 {
		t.Errorf("job warnings = %q, want only the user rule's", j.Warnings)
	}
}

// A finding whose subject, evidence, severity or category does not decode
// is kept with what does, and each fault is a warning naming the rule.
func TestMalformedFindingIsReported(t *testing.T) {
	rep, err := Run(context.Background(), "../../fixtures/exec-python-error",
		Options{Policies: []string{"testdata/policies/malformed"}})
	if err != nil {
		t.Fatal(err)
	}
	j := onlyJob(t, rep)
	var got *report.Finding
	for i := range j.Findings {
		if j.Findings[i].Rule == "site-shapes" {
			got = &j.Findings[i]
		}
	}
	if got == nil {
		t.Fatalf("the malformed finding was dropped: %+v", j.Findings)
	}
	if got.Severity != "warning" || got.Category != "exec.python-error" || len(got.Subjects) != 0 ||
		len(got.Evidence) != 1 || got.Evidence[0].Text != "kept" {
		t.Errorf("finding = %+v, want the rule's severity and category, no subject, the one good evidence entry", got)
	}
	for _, want := range []string{
		"subject must be an object", "evidence[0] must be an object",
		`severity "urgent" is not info, warning, error or critical`, `category "exec.made-up" is not a known category`,
	} {
		if !slices.ContainsFunc(j.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "rule site-shapes (testdata/policies/malformed/shapes.rego:") && strings.Contains(w, want)
		}) {
			t.Errorf("no warning %q naming the rule and file in %q", want, j.Warnings)
		}
	}
}

func onlyJob(t *testing.T, rep *report.Report) *report.Job {
	t.Helper()
	if len(rep.Jobs) != 1 {
		t.Fatalf("jobs = %d, want 1", len(rep.Jobs))
	}
	return &rep.Jobs[0]
}

// Settings switch a rule off or change its severity without replacing it.
func TestRuleSettings(t *testing.T) {
	ctx := context.Background()
	dir := "../../fixtures/risk-throughput-no-shm"
	rep, err := Run(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasCategory(onlyJob(t, rep), "spec.no-shm") {
		t.Fatal("fixture lost its spec.no-shm finding; the test below would prove nothing")
	}
	rep, err = Run(ctx, dir, Options{SkipRules: []string{"spec-no-shm"}})
	if err != nil {
		t.Fatal(err)
	}
	if hasCategory(onlyJob(t, rep), "spec.no-shm") {
		t.Error("--skip-rules spec-no-shm: the rule still reported")
	}
	rep, err = Run(ctx, dir, Options{DataFiles: []string{"testdata/settings/throughput-critical.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := onlyJob(t, rep).Primary; p.Category != "progress.throughput-drop" || p.Severity != "critical" {
		t.Errorf("primary = %s %s, want progress.throughput-drop raised to critical", p.Category, p.Severity)
	}
}

func hasCategory(j *report.Job, category string) bool {
	return slices.ContainsFunc(j.Findings, func(f report.Finding) bool { return f.Category == category })
}

// An acknowledged finding is shown but not counted and never fails a
// gate, whether a data file or the job's annotation acknowledges it.
func TestAcknowledgedFindings(t *testing.T) {
	ctx := context.Background()
	rep, err := Run(ctx, "../../fixtures/risk-throughput-no-shm", Options{DataFiles: []string{"testdata/settings/acknowledge-throughput.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	j := onlyJob(t, rep)
	var ack *report.Finding
	for i := range j.Findings {
		if j.Findings[i].Category == "progress.throughput-drop" {
			ack = &j.Findings[i]
		}
	}
	if ack == nil || !ack.Acknowledged || !strings.Contains(ack.AcknowledgedBy, "acknowledge-throughput.yaml:3: GPU 5 is being replaced") {
		t.Fatalf("throughput finding = %+v, want it acknowledged by the data file", ack)
	}
	if !j.Healthy || len(j.Failing("info")) != 1 || j.Failing("info")[0].Category != "spec.no-shm" {
		t.Errorf("healthy = %v, failing = %v: the acknowledged finding must not count", j.Healthy, j.Failing("info"))
	}
}

// copyFixture copies a bundled fixture into a temporary directory that a
// test may change.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "fixtures", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every byte of a log is scanned or counted: a cause printed after a
// 10 MiB line is still found, and the job says what was not read.
func TestLongLinesAreCountedNotLost(t *testing.T) {
	dir := copyFixture(t, "exec-nonzero-exit")
	log := filepath.Join(dir, "logs", "forecast", "tft-retrain-nightly-master-0", "pytorch.log")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	long := "payload=" + strings.Repeat("x", 10<<20) + "\n"
	cause := "ModuleNotFoundError: No module named 'pyarrow'\n"
	if err := os.WriteFile(log, append(append(b, long...), cause...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j := onlyJob(t, rep)
	if j.Primary.Category != "exec.missing-module" {
		t.Errorf("primary = %s, want the missing module printed after the long line", j.Primary.Category)
	}
	if !slices.ContainsFunc(j.Warnings, func(w string) bool {
		return strings.Contains(w, "pytorch.log: 1 lines longer than the scanner's line limit") && strings.Contains(w, "MiB in their middles were not")
	}) {
		t.Errorf("job warnings = %q, want the unread middle of the long line counted", j.Warnings)
	}
}

// A log that cannot be read is a warning on its job naming the file; the
// rest of the job is still read. (The file disappears between listing the
// snapshot and scanning it, which fails the same way for every user,
// root included.)
func TestUnreadableLogIsLocal(t *testing.T) {
	dir := copyFixture(t, "cascade-missing-module-crashloop")
	snap, err := snapshot.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	jobs := adapt.Build(snap)
	if len(jobs) != 1 || len(jobs[0].Pods) < 2 {
		t.Fatalf("fixture changed: %d jobs", len(jobs))
	}
	gone := snap.PodLogs(jobs[0].Namespace, jobs[0].Pods[0].Name)[0]
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(gone.Rel))); err != nil {
		t.Fatal(err)
	}
	d, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	warnings := d.logs.attach(context.Background(), snap, jobs[0], 2)
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, gone.Rel+": ") }) {
		t.Errorf("warnings = %q, want one naming %s", warnings, gone.Rel)
	}
	scanned := 0
	for _, p := range jobs[0].Pods {
		for _, c := range p.Containers {
			scanned += len(c.Logs)
		}
	}
	if scanned == 0 {
		t.Error("the other logs were not scanned")
	}
}

// A command output no parser reads (here a notebook's output saved from
// the pod) is scanned with the rules' signatures: the cause it holds is
// found, and attributed to the pod.
func TestOtherCommandOutputsAreScanned(t *testing.T) {
	dir := copyFixture(t, "exec-nonzero-exit")
	out := filepath.Join(dir, "exec", "forecast", "tft-retrain-nightly-master-0")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	notebook := "Traceback (most recent call last):\n  File \"/work/prep.py\", line 3, in <module>\n    import pyarrow\nModuleNotFoundError: No module named 'pyarrow'\n"
	if err := os.WriteFile(filepath.Join(out, "notebook-output.txt"), []byte(notebook), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j := onlyJob(t, rep)
	if j.Primary.Category != "exec.missing-module" || j.Primary.Evidence[0].File != "exec/forecast/tft-retrain-nightly-master-0/notebook-output.txt" {
		t.Errorf("primary = %s from %v, want the missing module from the notebook output", j.Primary.Category, j.Primary.Evidence)
	}
}

func TestLastTellingLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		tail []string
		want string
	}{
		{"plain", []string{"a", "step 10 loss 2.1"}, "step 10 loss 2.1"},
		{"banner rule", []string{"Traceback (most recent call last):", "RuntimeError: boom", strings.Repeat("=", 60)}, "RuntimeError: boom"},
		{"blank and dashes", []string{"exit 1", "", "----", "   "}, "exit 1"},
		{"nothing telling", []string{"====", ""}, ""},
		{"empty", nil, ""},
		{"digits count", []string{"hello", "42"}, "42"},
		{"chinese", []string{"训练结束", "***"}, "训练结束"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastTellingLine(tc.tail); got != tc.want {
				t.Errorf("lastTellingLine(%q) = %q, want %q", tc.tail, got, tc.want)
			}
		})
	}
}
