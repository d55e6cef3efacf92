package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpointBeyondLastSave checks that a listed checkpoint newer than
// the last save the logs report counts as still being written: the job's
// checkpoint is the one the logs say was saved.
func TestCheckpointBeyondLastSave(t *testing.T) {
	for _, tt := range []struct {
		name string
		log  string
		want int64
	}{
		{"save logged", "2026-03-02T08:50:00Z {'loss': 1.2}\n2026-03-02T08:51:00Z Saving model checkpoint to /out/checkpoint-600\n", 600},
		{"no save logged", "2026-03-02T08:50:00Z {'loss': 1.2}\n", 700},
	} {
		t.Run(tt.name, func(t *testing.T) {
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
			for _, name := range []string{"job.yaml", "snapshot.yaml"} {
				b, err := os.ReadFile(filepath.Join("testdata/user-signature", name))
				if err != nil {
					t.Fatal(err)
				}
				write(name, string(b))
			}
			write("logs/ml/train-master-0/pytorch.log", tt.log)
			write("exec/ml/train-master-0/checkpoints.txt", "total 12\n"+
				"drwxr-xr-x 2 root root 4096 2026-03-02 08:31 checkpoint-500\n"+
				"drwxr-xr-x 2 root root 4096 2026-03-02 08:51 checkpoint-600\n"+
				"drwxr-xr-x 2 root root 4096 2026-03-02 08:59 checkpoint-700\n")
			rep, err := Run(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Jobs) != 1 || rep.Jobs[0].Progress == nil || rep.Jobs[0].Progress.CheckpointStep == nil {
				t.Fatalf("no checkpoint progress in %+v", rep.Jobs)
			}
			if got := *rep.Jobs[0].Progress.CheckpointStep; got != tt.want {
				t.Errorf("checkpoint step = %d, want %d", got, tt.want)
			}
		})
	}
}
