package diagnose

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A user policy directory can add a log signature and a rule that uses it;
// the scanner picks the signature up with no Go change.
func TestUserSignatureEndToEnd(t *testing.T) {
	ctx := context.Background()
	rep, err := Run(ctx, "testdata/user-signature", Options{Policies: []string{"../policy/testdata/addrule"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Jobs) != 1 {
		t.Fatalf("jobs = %d", len(rep.Jobs))
	}
	j := rep.Jobs[0]
	var found bool
	for _, f := range j.Findings {
		if f.Rule == "site-s3-slowdown" {
			found = true
			if f.Params["count"] != float64(1) || f.Message.En != "1 SlowDown replies from the object store" {
				t.Errorf("finding = %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("the user rule did not fire: %+v", j.Findings)
	}
	// Without the user policy the same snapshot has no such finding.
	rep, err = Run(ctx, "testdata/user-signature", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Jobs[0].Findings {
		if f.Rule == "site-s3-slowdown" {
			t.Error("finding without the user policy")
		}
	}
}

// The same snapshot gives the same bytes.
func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := "../../fixtures/cascade-cuda-oom-nccl-timeout"
	var outs [2]bytes.Buffer
	for i := range outs {
		rep, err := Run(ctx, dir, Options{Version: "test", Concurrency: 1 + i})
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Write(&outs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
		t.Error("two runs over the same snapshot differ")
	}
}

// Malformed input never stops the diagnosis of the rest.
func TestHostileSnapshot(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job, err := os.ReadFile("testdata/user-signature/job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write("job.yaml", string(job))
	write("garbage.yaml", "kind: [\n")
	write("wrong-types.yaml", "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: weird, namespace: ml}\nspec: {pytorchReplicaSpecs: [1, 2]}\nstatus: {conditions: \"no\"}\n")
	write("logs/train-master-0/pytorch.log", "\x00\x01\x02\xff\xfe binary\n")
	write("logs/ghost/main.log", "a log for a pod that does not exist\n")
	write("exec/train-master-0/nvidia-smi.txt", "\x00garbage")
	rep, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Jobs) != 2 {
		t.Errorf("jobs = %d, want both, the odd one included", len(rep.Jobs))
	}
	if len(rep.Warnings) == 0 {
		t.Error("want a warning for garbage.yaml")
	}
}

// BenchmarkDiagnoseFixtures measures the whole offline pipeline (read,
// adapt, scan logs, evaluate rules, assemble) over one realistic fixture,
// with policies compiled once as the CLI does.
func BenchmarkDiagnoseFixtures(b *testing.B) {
	ctx := context.Background()
	d, err := New(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"cascade-cuda-oom-nccl-timeout", "cascade-512-ranks", "seed-master-oom-137"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := d.Diagnose(ctx, filepath.Join("../../fixtures", name)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Secrets seeded into events, logs and object fields never reach the report.
func TestReportIsRedacted(t *testing.T) {
	rep, err := Run(context.Background(), "../explain/testdata/snapshot-secrets", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf); err != nil {
		t.Fatal(err)
	}
	// The secrets seeded into that snapshot's events, logs and env.
	for _, s := range []string{
		"sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa",
		"hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890",
		"Sup3r-S3cret-DB-pw",
		"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
	} {
		if !bytes.Contains(snapshotBytes(t), []byte(s)) {
			t.Fatalf("test snapshot no longer holds %q", s)
		}
		if bytes.Contains(buf.Bytes(), []byte(s)) {
			t.Errorf("report contains the secret %q", s)
		}
	}
}

func snapshotBytes(t *testing.T) []byte {
	t.Helper()
	var all []byte
	err := filepath.Walk("../explain/testdata/snapshot-secrets", func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		all = append(all, b...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// Thresholds are rule data: a data file that raises the stall threshold
// turns the stalled fixture's finding off, with no Go or Rego change.
func TestThresholdOverride(t *testing.T) {
	ctx := context.Background()
	dir := "../../fixtures/progress-stalled"
	has := func(opts Options) bool {
		rep, err := Run(ctx, dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Jobs[0].Findings {
			if f.Category == "progress.stalled" {
				return true
			}
		}
		return false
	}
	if !has(Options{}) {
		t.Fatal("the fixture should be stalled with the default threshold")
	}
	data := filepath.Join(t.TempDir(), "thresholds.yaml")
	if err := os.WriteFile(data, []byte("settings:\n  thresholds:\n    stall_seconds: 86400\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if has(Options{DataFiles: []string{data}}) {
		t.Error("a one-day stall threshold still reports the job as stalled")
	}
}

// TestAllKeepsOrder diagnoses several snapshots at once and checks
// each report is the one Diagnose gives for its directory, in order.
func TestAllKeepsOrder(t *testing.T) {
	ctx := context.Background()
	d, err := New(ctx, Options{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{"../../fixtures/seed-succeeded", "../../fixtures/exec-cuda-oom", "../../fixtures/pod-image-pull", "../../fixtures/seed-succeeded"}
	reps, err := d.All(ctx, dirs)
	if err != nil {
		t.Fatal(err)
	}
	for i, dir := range dirs {
		want, err := d.Diagnose(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(reps[i].Jobs) != len(want.Jobs) || reps[i].Jobs[0].Key() != want.Jobs[0].Key() {
			t.Errorf("%s: report of %v, want %v", dir, reps[i].Jobs[0].Key(), want.Jobs[0].Key())
		}
	}
	if _, err := d.All(ctx, []string{"../../fixtures/seed-succeeded", "testdata/no-such-snapshot"}); err == nil {
		t.Error("a missing snapshot is no error")
	}
}
