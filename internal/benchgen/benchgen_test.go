package benchgen

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/traindoc/traindoc/engine/diagnose"
)

func TestWriteLogDeterministic(t *testing.T) {
	var a, b, c bytes.Buffer
	o := LogOptions{Size: 200 << 10, Seed: 7, Ending: CUDAOOM, Timestamps: true}
	if err := WriteLog(&a, o); err != nil {
		t.Fatal(err)
	}
	if err := WriteLog(&b, o); err != nil {
		t.Fatal(err)
	}
	o.Seed = 8
	if err := WriteLog(&c, o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same seed gave different logs")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("another seed gave the same log")
	}
	if n := a.Len(); n < 200<<10 || n > 210<<10 {
		t.Errorf("size %d, want about %d", n, 200<<10)
	}
}

// TestFleetDiagnoses checks that what the generator writes reads as
// intended: every job is found with its pods, the failing one is a CUDA
// OOM and the healthy one has no fault.
func TestFleetDiagnoses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	f := Fleet{Jobs: 2, PodsPerJob: 3, EventsPerJob: 20, Nodes: 4, LogBytes: 64 << 10, LogVariants: 1, FailEvery: 2, Seed: 1}
	if err := WriteSnapshot(dir, f); err != nil {
		t.Fatal(err)
	}
	rep, err := diagnose.Run(context.Background(), dir, diagnose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(rep.Jobs))
	}
	for _, j := range rep.Jobs {
		if len(j.Pods) != 3 {
			t.Errorf("%s: %d pods, want 3", j.Name, len(j.Pods))
		}
	}
	healthy, failed := rep.Jobs[0], rep.Jobs[1]
	if failed.Primary == nil || failed.Primary.Category != "exec.cuda-oom" {
		t.Errorf("failing job's primary = %+v, want exec.cuda-oom", failed.Primary)
	}
	for _, f := range healthy.Findings {
		if f.Severity == "error" || f.Severity == "critical" {
			t.Errorf("healthy job has %s %s", f.Severity, f.Category)
		}
	}
}
