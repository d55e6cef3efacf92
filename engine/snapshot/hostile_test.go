package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// allocated returns how many bytes fn allocates on the heap in total.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

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

// billionLaughs is the YAML form of the XML entity bomb: nine levels of
// nine aliases each would expand to 9^9 strings.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n")
	b.WriteString(`l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 9; i++ {
		prev := "*l" + string(rune('0'+i-1))
		b.WriteString("l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [" + strings.Repeat(prev+",", 8) + prev + "]\n")
	}
	return b.String()
}

// TestParseObjectsHostile: inputs built to exhaust memory or the stack end
// as one warning naming the file, with a small, bounded allocation.
func TestParseObjectsHostile(t *testing.T) {
	const depth = 100_000
	tests := []struct {
		name string
		in   string
		want string // in the warning
	}{
		{"alias bomb", billionLaughs(), "excessive aliasing"},
		{"deep JSON arrays", strings.Repeat("[", depth) + strings.Repeat("]", depth), "max depth"},
		{"deep JSON objects", strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth), "max depth"},
		{"deep JSON in an object", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":` +
			strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + "}", "max depth"},
		{"deep block sequences", strings.Repeat("- ", depth) + "x\n", "max depth"},
		{"deep flow mappings", strings.Repeat("{a: ", depth) + "b" + strings.Repeat("}", depth), "max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objs []*Object
			var warns []string
			n := allocated(func() { objs, warns = parseObjects([]byte(tt.in), "bomb.yaml") })
			if len(objs) != 0 {
				t.Errorf("%d objects read from a hostile file", len(objs))
			}
			if len(warns) != 1 || !strings.HasPrefix(warns[0], "bomb.yaml: ") || !strings.Contains(warns[0], tt.want) {
				t.Errorf("warnings = %q, want one naming bomb.yaml and saying %q", warns, tt.want)
			}
			// The input is at most 500 KiB; a parser that expanded it would
			// allocate gigabytes.
			if n > 256<<20 {
				t.Errorf("allocated %d MiB", n>>20)
			}
		})
	}
}

// TestReadHugeFile: a 2 GiB object file (sparse, so it costs no disk) is
// skipped by its size, without being read into memory.
func TestReadHugeFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: big}\n"); err != nil {
		t.Fatal(err)
	}
	err = f.Truncate(2 << 30)
	f.Close()
	if err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	var s *Snapshot
	n := allocated(func() {
		s, err = Read(dir)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0] != "big.yaml: larger than 256 MiB, skipped" {
		t.Errorf("warnings = %q", s.Warnings)
	}
	if len(s.Objects) != 0 {
		t.Errorf("objects = %d", len(s.Objects))
	}
	if n > 16<<20 {
		t.Errorf("allocated %d MiB to skip a file by its size", n>>20)
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
		"link.yaml":        "symbolic link, not followed",
		"logs/p3.log":      "too many levels of symbolic links",
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
	// A link to a regular log is read: the kubelet's log folders are links.
	if l := s.Logs["p4"]; len(l) != 1 {
		t.Errorf("logs of p4 (a link to a file) = %+v", l)
	}
	for _, pod := range []string{"p1", "p2", "p3"} {
		if l := s.Logs[pod]; len(l) != 0 {
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
