package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestReadFileBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		max     int64
		wantErr bool
	}{{-1, false}, {10, false}, {9, true}, {0, true}} {
		b, err := ReadFile(p, tt.max)
		var tl *TooLargeError
		if tt.wantErr != errors.As(err, &tl) {
			t.Errorf("max %d: err = %v", tt.max, err)
		}
		if !tt.wantErr && string(b) != "0123456789" {
			t.Errorf("max %d: read %q", tt.max, b)
		}
	}
}

// endless is a reader that never ends and counts what was read from it.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadAtMostEndless: a source larger than its declared size (a file
// still being written, a /proc file) is cut after max+1 bytes.
func TestReadAtMostEndless(t *testing.T) {
	const max = 1 << 20
	r := &endless{}
	_, err := ReadAtMost(r, max)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Error() != "larger than 1 MiB" {
		t.Fatalf("err = %v, want larger than 1 MiB", err)
	}
	if r.n > max+64<<10 {
		t.Errorf("read %d bytes for a bound of %d", r.n, max)
	}
	b, err := ReadAtMost(io.LimitReader(&endless{}, max), max)
	if err != nil || len(b) != max {
		t.Errorf("exactly max bytes: %d, %v", len(b), err)
	}
}

// TestReadFileFSBound: the size bound holds for any fs.FS, checked before
// reading.
func TestReadFileFSBound(t *testing.T) {
	fsys := fstest.MapFS{
		"small": {Data: []byte("0123")},
		"big":   {Data: make([]byte, 100)},
		"pipe":  {Mode: fs.ModeNamedPipe},
	}
	if b, err := ReadFileFS(fsys, "small", 10); err != nil || string(b) != "0123" {
		t.Errorf("small = %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := ReadFileFS(fsys, "big", 10); !errors.As(err, &tl) {
		t.Errorf("big: err = %v, want TooLargeError", err)
	}
	if _, err := ReadFileFS(fsys, "pipe", 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("pipe: err = %v, want ErrNotRegular", err)
	}
}
