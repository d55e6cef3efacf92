package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A grep of Ray's session logs saved as exec/<ns>/<pod>/<name>.log.txt is
// scanned like a log (as every command output no parser reads is): NCCL's socket transport on an EFA cluster shows
// there and nowhere else (Ray workers do not print to the container's
// output).
func TestLogExcerpts(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "fixtures", "progress-gpu-idle"))); err != nil {
		t.Fatal(err)
	}
	d, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	efaFallback := func() []string {
		rep, err := d.Diagnose(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range rep.Jobs[0].Findings {
			if f.Category == "exec.efa-fallback" {
				for _, e := range f.Evidence {
					files = append(files, e.File)
				}
			}
		}
		return files
	}
	if got := efaFallback(); len(got) != 0 {
		t.Fatalf("fallback without the excerpt: %v", got)
	}
	pod := "verl-grpo-training-gpu-group-worker-84e9e"
	excerpt := strings.Join([]string{
		pod + ":2211:2211 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
		pod + ":2211:2398 [0] NCCL INFO NET/Socket : Using [0]eth0:10.244.3.17<0>",
		pod + ":2211:2398 [0] NCCL INFO Using network Socket",
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "exec", "rl", pod, "nccl-transport.log.txt"), []byte(excerpt), 0o644); err != nil {
		t.Fatal(err)
	}
	got := efaFallback()
	if len(got) == 0 || got[0] != "exec/rl/"+pod+"/nccl-transport.log.txt" {
		t.Errorf("fallback evidence = %v", got)
	}
}
