package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/fsname"
)

// WriteJobFiles writes, for every job, <namespace>/<name>.<lang>.md and
// .<lang>.html in every language under outDir, and returns the paths
// written. Namespace and name come from the cluster, so they are reduced
// to safe file-name characters and the result is checked to stay inside
// outDir.
func WriteJobFiles(outDir string, rep *report.Report, opts Options) ([]string, error) {
	if rep == nil {
		return nil, fmt.Errorf("write job files: no report")
	}
	root, err := filepath.Abs(outDir)
	if err != nil {
		return nil, fmt.Errorf("write job files: %w", err)
	}
	// Writes go through an os.Root: a link already in the folder (a
	// namespace folder pointing elsewhere) cannot carry a page outside it.
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("write job files: %w", err)
	}
	out, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("write job files: %w", err)
	}
	defer out.Close()
	version := versionOf(rep, opts.Version)
	used := map[string]bool{}
	var written []string
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		dir := fsname.Safe(j.Namespace)
		base := uniqueBase(used, dir, fsname.Safe(j.Name), fsname.Safe(strings.ToLower(j.Kind)))
		for _, lang := range Languages {
			md := jobMarkdown(j, rep, lang, version)
			page, err := markdownPage(md, jobHeading(j)+" · "+T(lang, "report.title"), lang, version)
			if err != nil {
				return written, fmt.Errorf("job %s: %w", j.Key(), err)
			}
			for _, f := range []struct {
				ext  string
				data []byte
			}{{".md", md}, {".html", page}} {
				rel := filepath.Join(dir, base+"."+lang+f.ext)
				if _, err := insideDir(root, rel); err != nil {
					return written, err
				}
				if err := out.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
					return written, fmt.Errorf("job %s: %w", j.Key(), err)
				}
				if err := out.WriteFile(rel, f.data, 0o644); err != nil {
					return written, fmt.Errorf("job %s: %w", j.Key(), err)
				}
				written = append(written, filepath.Join(outDir, dir, base+"."+lang+f.ext))
			}
		}
	}
	return written, nil
}

// uniqueBase returns name, or name-kind, or name-kind-N, whichever is not
// yet used in dir: two jobs of different kinds may share a name.
func uniqueBase(used map[string]bool, dir, name, kind string) string {
	try := func(b string) bool {
		k := strings.ToLower(dir + "/" + b)
		if used[k] {
			return false
		}
		used[k] = true
		return true
	}
	if try(name) {
		return name
	}
	withKind := name + "-" + kind
	if try(withKind) {
		return withKind
	}
	for n := 2; ; n++ {
		if b := withKind + "-" + strconv.Itoa(n); try(b) {
			return b
		}
	}
}

// insideDir joins rel to root and refuses any result outside root.
func insideDir(root, rel string) (string, error) {
	p := filepath.Join(root, rel)
	r, err := filepath.Rel(root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", fmt.Errorf("refusing to write %q outside %s", rel, root)
	}
	return p, nil
}
