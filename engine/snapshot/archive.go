package snapshot

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
)

// openZip opens a zip archive of a snapshot as an fs.FS. Archives made
// with `zip -r snap.zip snap/` hold one top folder; its content is the
// snapshot. The archive's fs.FS puts entries named outside it ("../x",
// "/etc/x") inside it ("x", "etc/x"), so a hostile archive cannot name a
// file of this machine. A snapshot writer never makes such entries, so
// each is named in a warning: read at the place the archive's fs.FS gives
// it, or not read when that place is outside the top folder.
func openZip(ra io.ReaderAt, size int64, name string) (fs.FS, []string, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	fsys, warnings, err := zipRoot(zr)
	if err != nil {
		return nil, nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	return fsys, warnings, nil
}

// readZip reads the snapshot an archive holds.
func readZip(ra io.ReaderAt, size int64, name string) (*Snapshot, error) {
	fsys, warnings, err := openZip(ra, size, name)
	if err != nil {
		return nil, err
	}
	s, err := ReadFS(fsys, name)
	if err != nil {
		return nil, err
	}
	s.Warnings = append(s.Warnings, warnings...)
	sort.Strings(s.Warnings)
	return s, nil
}

// zipRoot returns the snapshot folder of an archive and the warnings
// naming its unsafe entries.
func zipRoot(zr *zip.Reader) (fs.FS, []string, error) {
	var unsafe []string
	tops := map[string]bool{}
	nested := true // every safe entry lies below a top folder
	for _, f := range zr.File {
		n := strings.TrimSuffix(f.Name, "/")
		if n == "" {
			continue
		}
		if !fs.ValidPath(n) {
			unsafe = append(unsafe, f.Name)
			continue
		}
		top, rest, _ := strings.Cut(n, "/")
		// Archivers add their own entries (__MACOSX, .DS_Store) beside the content.
		if top == "__MACOSX" || strings.HasPrefix(top, ".") {
			continue
		}
		tops[top] = true
		if rest == "" && !f.Mode().IsDir() {
			nested = false
		}
	}
	var fsys fs.FS = zr
	how := "read as a path inside it"
	if len(tops) == 1 && nested {
		for top := range tops {
			var err error
			if fsys, err = fs.Sub(zr, top); err != nil {
				return nil, nil, err
			}
		}
		how = "not read"
	}
	var warnings []string
	for _, n := range unsafe {
		warnings = append(warnings, fmt.Sprintf("archive entry %q: a name reaching outside the archive, %s", n, how))
	}
	return fsys, warnings, nil
}

// isZip tells a zip archive by its first bytes, whatever its name.
func isZip(head []byte) bool {
	return len(head) >= 4 && string(head[:4]) == "PK\x03\x04"
}
