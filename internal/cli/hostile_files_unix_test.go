//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// aliasBomb is the YAML form of the "billion laughs": nine levels of nine
// aliases, 9^9 strings once expanded.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol, namespace: ml}\ndata:\n")
	b.WriteString(`  l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 9; i++ {
		prev := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "  l%d: &l%d [%s%s]\n", i, i, strings.Repeat(prev+",", 8), prev)
	}
	return b.String()
}

// hostileSmallFiles is how many tiny object files the many-files case
// writes: the 50,000, or 5,000 under -short.
func hostileSmallFiles() int {
	if testing.Short() {
		return 5_000
	}
	return 50_000
}

// TestHostileFiles puts an alias bomb, 100,000-deep JSON, a symbolic link
// loop, a link out of the snapshot, named pipes, an unreadable file and
// folder, and thousands of small files beside a real failing job. The
// command finishes, diagnoses the job, names every bad file in a warning,
// and its heap stays small. Not parallel: the heap it samples must be this
// command's alone.
func TestHostileFiles(t *testing.T) {
	snap := t.TempDir()
	writeHostileSnapshot(t, snap, hostileJob{Namespace: "ml", Name: "real", Events: []string{"Back-off restarting failed container"},
		Log: "Traceback (most recent call last):\nModuleNotFoundError: No module named 'deepspeed'\n"})
	const depth = 100_000
	mustWrite(t, filepath.Join(snap, "bomb.yaml"), []byte(aliasBomb()))
	mustWrite(t, filepath.Join(snap, "deep.json"), []byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)))
	mustWrite(t, filepath.Join(snap, "deep-object.json"), []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep","namespace":"ml"},"spec":`+strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth)+"}"))
	wantWarn := []string{"bomb.yaml", "deep.json", "deep-object.json"}

	special := []struct {
		rel  string
		make func(p string) error
	}{
		{"loop.yaml", func(p string) error { return os.Symlink("loop.yaml", p) }},
		{"loopdir", func(p string) error { return os.Symlink(".", p) }},
		{"passwd.yaml", func(p string) error { return os.Symlink("/etc/passwd", p) }},
		{"pipe.yaml", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"logs/ml/real-master-0/sidecar.log", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"logs/ml/real-master-0/shadow.log", func(p string) error { return os.Symlink("/etc/shadow", p) }},
	}
	for _, s := range special {
		p := filepath.Join(snap, filepath.FromSlash(s.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := s.make(p); err != nil {
			t.Skipf("cannot make %s here: %v", s.rel, err)
		}
		wantWarn = append(wantWarn, s.rel)
	}
	// Unreadable files: root reads them anyway, so they are only planted
	// (and expected in the warnings) for other users.
	locked := filepath.Join(snap, "locked.yaml")
	lockedDir := filepath.Join(snap, "locked")
	mustWrite(t, locked, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: locked}\n"))
	mustWrite(t, filepath.Join(lockedDir, "pod.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: locked2}\n"))
	for _, p := range []string{locked, lockedDir} {
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = os.Chmod(lockedDir, 0o755) })
	if f, err := os.Open(locked); err == nil {
		f.Close()
		t.Log("mode 000 does not stop this user from reading: unreadable files not checked")
	} else if errors.Is(err, os.ErrPermission) {
		wantWarn = append(wantWarn, "locked.yaml", "locked")
	}

	n := hostileSmallFiles()
	for i := range n {
		mustWrite(t, filepath.Join(snap, "many", fmt.Sprintf("%03d", i%1000), fmt.Sprintf("cm-%d.yaml", i)),
			[]byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d, namespace: ml}\n", i)))
	}

	r := runBounded(t, true, "diagnose", "--snapshot", snap, "-o", "json")
	if r.code != exitOK && r.code != exitPartial {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Logf("%d small files, peak heap %d MiB", n, r.peakHeap>>20)
	var rep struct {
		Warnings []string
		Jobs     []struct{ Name string }
	}
	if err := jsonUnmarshal(r.stdout, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Jobs) != 1 || rep.Jobs[0].Name != "real" {
		t.Errorf("jobs = %+v, want the one real job", rep.Jobs)
	}
	for _, w := range wantWarn {
		found := false
		for _, got := range rep.Warnings {
			found = found || strings.HasPrefix(got, w+": ") || strings.Contains(got, " "+w+": ") || strings.Contains(got, "/"+w+": ")
		}
		if !found {
			t.Errorf("no warning names %s; warnings: %q", w, rep.Warnings)
		}
	}
	if strings.Contains(r.stdout, "root:x:0:0") {
		t.Error("a link out of the snapshot was followed")
	}
	// An expanded bomb needs gigabytes; the many files are read one at a
	// time. The sampled heap includes the compiled rules.
	if r.peakHeap > 512<<20 {
		t.Errorf("peak heap %d MiB", r.peakHeap>>20)
	}
}
