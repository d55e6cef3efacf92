//go:build unix

package execout

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

// TestParseDirSpecialFiles: a named pipe among the outputs is an error
// naming it, not a reader blocked forever waiting for a writer.
func TestParseDirSpecialFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pod-a")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "df-shm.txt"), []byte("shm 64M\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "nvidia-smi.txt"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Symlink("loop.txt", filepath.Join(dir, "loop.txt")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	done := make(chan struct{})
	var out *evidence.ExecOutputs
	var errs []error
	go func() { defer close(done); out, errs = ParseDir(dir) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("still reading after 30 s")
	}
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	sort.Strings(msgs)
	if len(msgs) != 2 ||
		!strings.Contains(msgs[0], "exec/pod-a/loop.txt") || !strings.Contains(msgs[0], "symbolic link, not followed") ||
		!strings.Contains(msgs[1], "exec/pod-a/nvidia-smi.txt") || !strings.Contains(msgs[1], "not a regular file (named pipe)") {
		t.Errorf("errors = %q", msgs)
	}
	if out == nil || len(out.Other) != 1 || out.Other[0].Name != "df-shm" {
		t.Errorf("the regular file was not kept: %+v", out)
	}
}
