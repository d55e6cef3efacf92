package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotSite means the output folder holds files but no earlier site.
var ErrNotSite = errors.New("folder is not empty and holds no earlier site")

// marker is written at the top of the output folder; a later build only
// clears a folder that has it, so pointing --out at the wrong directory
// cannot delete anything that is not a traindoc site.
const marker = ".traindoc-site"

// Build renders the site and writes it to dir. A previous site in dir is
// replaced; a non-empty dir that is not a site is refused.
func Build(in Input, dir string) error {
	files, err := Render(in)
	if err != nil {
		return err
	}
	return Write(files, dir)
}

// Write writes files under dir, first removing what an earlier build
// wrote there.
func Write(files Files, dir string) error {
	if err := clearOld(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write site: %w", err)
	}
	// Writes go through an os.Root, so a link left in the folder cannot
	// carry a page outside it.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("write site: %w", err)
	}
	defer root.Close()
	for _, p := range files.Paths() {
		rel := filepath.FromSlash(p)
		if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return fmt.Errorf("write site: %w", err)
		}
		if err := root.WriteFile(rel, files[p], 0o644); err != nil {
			return fmt.Errorf("write site: %w", err)
		}
	}
	return nil
}

// clearOld empties dir when it holds an earlier site, so that pages of jobs
// gone from the input do not linger.
func clearOld(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write site: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		return fmt.Errorf("write site: %s: %w (no %s file); choose an empty folder", dir, ErrNotSite, marker)
	}
	for _, name := range []string{"en", "zh", "assets", "index.html", marker} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("write site: %w", err)
		}
	}
	return nil
}
