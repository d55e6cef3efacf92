//go:build unix

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// withTimeout fails the test instead of hanging it when fn blocks, as
// opening a named pipe for reading would.
func withTimeout(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s")
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	loop := filepath.Join(dir, "loop")
	fifo := filepath.Join(dir, "fifo")
	for _, err := range []error{
		os.Symlink("reg", link),
		os.Symlink("loop", loop),
		syscall.Mkfifo(fifo, 0o644),
	} {
		if err != nil {
			t.Skipf("cannot make special files here: %v", err)
		}
	}
	tests := []struct {
		name    string
		path    string
		wantErr error // nil: opens
	}{
		{"regular file", reg, nil},
		{"link to a regular file", link, nil},
		{"named pipe", fifo, ErrNotRegular},
		{"directory", dir, ErrNotRegular},
		{"link loop", loop, syscall.ELOOP},
		{"missing", filepath.Join(dir, "none"), os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withTimeout(t, func() {
				f, st, err := Open(tt.path)
				if tt.wantErr == nil {
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					if st.Size() != 4 {
						t.Errorf("size = %d, want 4", st.Size())
					}
					return
				}
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if f != nil {
					t.Error("a file was returned with the error")
				}
			})
		})
	}
}
