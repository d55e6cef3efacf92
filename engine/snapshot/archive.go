package snapshot

import (
	"archive/zip"
	"fmt"
	"io/fs"
	"strings"
)

// openZip opens a zip archive of a snapshot as an fs.FS. Archives made
// with `zip -r snap.zip snap/` hold one top folder; its content is the
// snapshot. The archive's fs.FS puts entries named outside it ("../x",
// "/etc/x") inside it ("x", "etc/x"), so a hostile archive cannot name a
// file of this machine. A snapshot writer never makes such entries, so
// each is named in a warning: read at the place the archive's fs.FS gives
// it, or not read when that place is outside the top folder.
func openZip(name string) (fs.FS, *zip.ReadCloser, []string, error) {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
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
			if fsys, err = fs.Sub(zr, top); err != nil {
				zr.Close()
				return nil, nil, nil, fmt.Errorf("read snapshot %s: %w", name, err)
			}
		}
		how = "not read"
	}
	var warnings []string
	for _, n := range unsafe {
		warnings = append(warnings, fmt.Sprintf("archive entry %q: a name reaching outside the archive, %s", n, how))
	}
	return fsys, zr, warnings, nil
}

// isZip tells a zip archive by its first bytes, whatever its name.
func isZip(head []byte) bool {
	return len(head) >= 4 && string(head[:4]) == "PK\x03\x04"
}
