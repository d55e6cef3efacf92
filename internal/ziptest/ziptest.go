// Package ziptest packs folders into zip archives for tests of snapshots
// given as archives.
package ziptest

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
)

// Files returns the files below dir, named by their slash path below top
// ("" for none).
func Files(t testing.TB, dir, top string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[path.Join(top, filepath.ToSlash(rel))] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Archive packs files into a zip archive, in name order, names as given
// (entries named outside the archive included).
func Archive(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := w.Create(name)
		if err == nil {
			_, err = f.Write(files[name])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Folder packs the files below dir into a zip archive, below top.
func Folder(t testing.TB, dir, top string) []byte {
	t.Helper()
	return Archive(t, Files(t, dir, top))
}
