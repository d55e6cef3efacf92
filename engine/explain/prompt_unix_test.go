//go:build unix

package explain

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/regfile"
)

// TestOverrideSpecialFiles: a snapshot's prompts/ holding a named pipe or
// a link to an endless device fails with an error naming the file, instead
// of blocking on the pipe or reading without end.
func TestOverrideSpecialFiles(t *testing.T) {
	for name, mk := range map[string]func(string) error{
		"named pipe":       func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"link to a device": func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "default.tmpl")
			if err := mk(p); err != nil {
				t.Skipf("cannot make it here: %v", err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := loadTemplates([]promptDir{{path: dir, optional: true}})
				done <- err
			}()
			select {
			case err := <-done:
				var pe *os.PathError
				if !errors.Is(err, regfile.ErrNotRegular) || !errors.As(err, &pe) || pe.Path != p {
					t.Errorf("err = %v, want not a regular file naming %s", err, p)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("still loading after 30 s")
			}
		})
	}
}
