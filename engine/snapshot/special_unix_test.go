//go:build unix

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noHang fails the test, instead of hanging it, when fn blocks.
func noHang(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("still running after 30 s")
	}
}

// TestReadSpecialFiles: named pipes, sockets-like entries and symbolic
// link loops in a snapshot are skipped with a warning naming them; a named
// pipe is never opened, which would block until a writer came.
func TestReadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
	for rel, body := range map[string]string{"pod.yaml": pod, "logs/real.log": "x\n", "target.yaml": pod} {
		if err := os.WriteFile(mk(rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, err := range []error{
		syscall.Mkfifo(mk("snapshot.yaml"), 0o644),
		syscall.Mkfifo(mk("pipe.yaml"), 0o644),
		syscall.Mkfifo(mk("sub/pipe.json"), 0o644),
		syscall.Mkfifo(mk("logs/p1/main.log"), 0o644),
		syscall.Mkfifo(mk("logs/p2.log"), 0o644),
		os.Symlink("loop.yaml", mk("loop.yaml")),
		os.Symlink("loopdir", mk("loopdir")),
		os.Symlink("target.yaml", mk("link.yaml")),
		os.Symlink("p3.log", mk("logs/p3.log")),
		os.Symlink("real.log", mk("logs/p4.log")),
	} {
		if err != nil {
			t.Skipf("cannot make special files here: %v", err)
		}
	}
	var s *Snapshot
	var err error
	noHang(t, func() { s, err = Read(dir) })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"snapshot.yaml":    "not a regular file (named pipe)",
		"pipe.yaml":        "not a regular file (named pipe), skipped",
		"sub/pipe.json":    "not a regular file (named pipe), skipped",
		"logs/p1/main.log": "not a regular file (named pipe), skipped",
		"logs/p2.log":      "not a regular file (named pipe), skipped",
		"loop.yaml":        "symbolic link, not followed",
		"loopdir":          "symbolic link, not followed",
		"link.yaml":        "symbolic link, not followed",
		"logs/p3.log":      "symbolic link, not followed",
		"logs/p4.log":      "symbolic link, not followed",
	}
	for _, w := range s.Warnings {
		file, msg, _ := strings.Cut(w, ": ")
		if exp, ok := want[file]; ok && strings.Contains(msg, exp) {
			delete(want, file)
			continue
		}
		t.Errorf("unexpected warning %q", w)
	}
	for file, msg := range want {
		t.Errorf("no warning for %s (%s)", file, msg)
	}
	if len(s.Objects) != 2 {
		t.Errorf("objects = %d, want pod.yaml and target.yaml", len(s.Objects))
	}
	// No link or pipe under logs/ is indexed, even one to a regular file:
	// a snapshot may come from someone else, and a link could point at any
	// file of the machine that reads it.
	for _, pod := range []string{"p1", "p2", "p3", "p4"} {
		if l := s.PodLogs("", pod); len(l) != 0 {
			t.Errorf("logs of %s indexed: %+v", pod, l)
		}
	}
}

// TestReadUnreadable: files and folders the reader may not open become
// warnings naming them; the rest is read.
func TestReadUnreadable(t *testing.T) {
	dir := t.TempDir()
	pod := []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
	secret := filepath.Join(dir, "secret.yaml")
	closed := filepath.Join(dir, "closed")
	if err := os.Mkdir(closed, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{secret, filepath.Join(closed, "pod.yaml"), filepath.Join(dir, "pod.yaml")} {
		if err := os.WriteFile(p, pod, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{secret, closed} {
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = os.Chmod(closed, 0o755) })
	// Root (and CAP_DAC_OVERRIDE) reads anything: there is nothing to test.
	if f, err := os.Open(secret); err == nil {
		f.Close()
		t.Skip("mode 000 does not stop this user from reading")
	} else if !errors.Is(err, os.ErrPermission) {
		t.Fatal(err)
	}
	s, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 2 ||
		!strings.HasPrefix(s.Warnings[0], "closed: ") || !strings.Contains(s.Warnings[0], "permission denied") ||
		!strings.HasPrefix(s.Warnings[1], "secret.yaml: ") || !strings.Contains(s.Warnings[1], "permission denied") {
		t.Errorf("warnings = %q", s.Warnings)
	}
	if len(s.Objects) != 1 || s.Objects[0].File != "pod.yaml" {
		t.Errorf("objects = %+v", s.Objects)
	}
}
