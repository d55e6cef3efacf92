//go:build unix

package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
)

// TestDirFS: a folder read through DirFS behaves as an fs.FS (fstest's
// checks), keeps every name inside the folder, and never blocks on a pipe.
func TestDirFS(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs", "ns"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", "ns", "a.log"), []byte("line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(DirFS(dir), "logs/ns/a.log"); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		os.Symlink(secret, filepath.Join(dir, "abs-link")),
		os.Symlink("../../"+filepath.Base(outside)+"/secret", filepath.Join(dir, "logs", "rel-link")),
		os.Symlink("ns/a.log", filepath.Join(dir, "logs", "inside-link")),
		syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644),
	} {
		if err != nil {
			t.Skipf("cannot make special files here: %v", err)
		}
	}
	fsys := DirFS(dir)
	tests := []struct {
		name    string
		wantErr bool
		errIs   error
	}{
		{"logs/ns/a.log", false, nil},
		{"logs/inside-link", false, nil},
		// Links that leave the folder are refused, absolute or relative.
		{"abs-link", true, nil},
		{"logs/rel-link", true, nil},
		// So are names fs.FS does not allow.
		{"../" + filepath.Base(outside) + "/secret", true, fs.ErrInvalid},
		{"/etc/passwd", true, fs.ErrInvalid},
		// A pipe is refused, and opening it does not wait for a writer.
		{"fifo", true, ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withTimeout(t, func() {
				f, _, err := OpenFS(fsys, tt.name)
				if !tt.wantErr {
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					// The root is closed once the file is open; the file still reads.
					b, err := io.ReadAll(f)
					if err != nil || string(b) != "line\n" {
						t.Errorf("read = %q, %v", b, err)
					}
					return
				}
				if err == nil {
					f.Close()
					t.Fatal("opened")
				}
				if tt.errIs != nil && !errors.Is(err, tt.errIs) {
					t.Errorf("err = %v, want %v", err, tt.errIs)
				}
			})
		})
	}
	// The pipe itself, opened directly through the FS, does not block either.
	withTimeout(t, func() {
		if f, err := fsys.Open("fifo"); err == nil {
			f.Close()
		}
	})
}
