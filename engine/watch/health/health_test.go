package health

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/traindoc/traindoc/engine/diagnose"
)

var (
	once sync.Once
	d    *diagnose.Diagnoser
	derr error
)

func health(t *testing.T, dir string, jobs ...string) []Health {
	t.Helper()
	once.Do(func() { d, derr = diagnose.New(context.Background(), diagnose.Options{}) })
	if derr != nil {
		t.Fatal(derr)
	}
	hs, err := Of(context.Background(), d, dir, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

func replay(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "replay"}, parts...)...)
}

func TestHealthyTraining(t *testing.T) {
	hs := health(t, replay("nccl-restart", "r2"), "conformer-xl")
	if len(hs) != 1 {
		t.Fatalf("%d jobs", len(hs))
	}
	h := hs[0]
	if !h.Healthy || h.Job != "asr/conformer-xl" || h.Phase != "Running" || len(h.Issues) != 0 {
		t.Errorf("health = %+v", h)
	}
	if len(h.GPU.Utilization) != 8 || h.GPU.Average == nil || *h.GPU.Average != 96.3 || h.GPU.Idle {
		t.Errorf("gpu = %+v", h.GPU)
	}
	if h.Transport.Name != "IB" || h.Transport.Fallback {
		t.Errorf("transport = %+v", h.Transport)
	}
	c := h.Checkpoints
	if c.LatestStep == nil || *c.LatestStep != 10000 || !strings.HasSuffix(c.Path, "epoch=2-step=10000.ckpt") || c.AgeSeconds == nil || *c.AgeSeconds != 994 || c.Stale {
		t.Errorf("checkpoints = %+v", c)
	}
	if h.Progress.Step == nil || *h.Progress.Step != 2200 || h.Progress.ThroughputUnit != "it/s" {
		t.Errorf("progress = %+v", h.Progress)
	}
}

func TestIdleGPUs(t *testing.T) {
	h := health(t, replay("gpu-idle", "r2"))[0]
	if h.Healthy || h.Primary != "progress.gpu-idle" || !h.GPU.Idle || *h.GPU.Average != 0 || len(h.GPU.Pods) != 2 {
		t.Errorf("health = %+v", h)
	}
	// The actors hold the GPUs (16/16 allocated) and do nothing with them.
	if h.Ray == nil || h.Ray.GPUsUsed != 16 || h.Ray.GPUsTotal != 16 {
		t.Errorf("ray = %+v", h.Ray)
	}
	if len(h.Issues) != 1 || !h.Issues[0].Primary || h.Issues[0].Category != "progress.gpu-idle" {
		t.Errorf("issues = %+v", h.Issues)
	}
}

// The seed's ray job submit trap: the job runs, Ray has GPUs, none are
// used.
func TestRayJobSubmitTrap(t *testing.T) {
	h := health(t, filepath.Join("..", "..", "..", "fixtures", "progress-gpu-idle"))[0]
	if h.Ray == nil || h.Ray.GPUsUsed != 0 || h.Ray.GPUsTotal != 8 || !h.GPU.Idle {
		t.Errorf("health = %+v", h)
	}
	var b bytes.Buffer
	if err := WriteText(&b, []Health{h}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rl/verl-grpo-training (RayCluster, Running) unhealthy: progress.gpu-idle", "GPUs 0/8 used", "8 GPU(s), average 0%: idle", "(primary)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestSocketFallback(t *testing.T) {
	h := health(t, filepath.Join("..", "..", "..", "fixtures", "exec-efa-fallback"))[0]
	if h.Transport.Name != "socket" || !h.Transport.Fallback {
		t.Errorf("transport = %+v", h.Transport)
	}
}

func TestJSONAndUnknownJob(t *testing.T) {
	hs := health(t, replay("stall", "r4"))
	var b bytes.Buffer
	if err := WriteJSON(&b, hs); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back) != 1 {
		t.Fatalf("%v %s", err, b.String())
	}
	for _, k := range []string{"gpu", "transport", "checkpoints", "progress", "issues", "primary", "healthy"} {
		if _, ok := back[0][k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if _, err := Of(context.Background(), d, replay("stall", "r4"), []string{"nope"}); err == nil {
		t.Error("unknown job accepted")
	}
}

func TestOneLine(t *testing.T) {
	if got := oneLine("a\x1b[31mred\x1b[0m\nb"); strings.ContainsRune(got, 0x1b) || strings.Contains(got, "\n") {
		t.Errorf("oneLine = %q", got)
	}
}
