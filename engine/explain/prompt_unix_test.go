//go:build unix

package explain

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/regfile"
)

// TestOverrideSpecialFiles: a snapshot's prompts/ holding a named pipe or
// a link to an endless device fails with an error naming the file, instead
// of blocking on the pipe or reading without end. The pipe is refused as
// not a regular file; the link is not even followed, because it leaves
// the folder.
func TestOverrideSpecialFiles(t *testing.T) {
	for name, tt := range map[string]struct {
		mk   func(string) error
		want string
	}{
		"named pipe":       {func(p string) error { return syscall.Mkfifo(p, 0o644) }, regfile.ErrNotRegular.Error()},
		"link to a device": {func(p string) error { return os.Symlink("/dev/zero", p) }, "escapes"},
	} {
		mk := tt.mk
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "default.tmpl")
			if err := mk(p); err != nil {
				t.Skipf("cannot make it here: %v", err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := loadTemplates([]promptDir{{fsys: regfile.DirFS(dir), dir: ".", label: dir, optional: true}})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %v, want one naming %s and saying %q", err, p, tt.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("still loading after 30 s")
			}
		})
	}
}
