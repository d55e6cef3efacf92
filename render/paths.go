package render

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// DisplayPath is how outputs name a directory given on the command line:
// a relative path that stays below the working directory as it is, else
// only its last element. An absolute path names the machine that built
// the output, and a published report or site must not carry it.
func DisplayPath(dir string) string {
	clean := filepath.ToSlash(filepath.Clean(dir))
	if !filepath.IsAbs(dir) && clean != ".." && !strings.HasPrefix(clean, "../") {
		return clean
	}
	base := filepath.Base(filepath.Clean(dir))
	if base == "/" || base == "." || base == ".." {
		return "snapshot"
	}
	return base
}

// HidePaths replaces every spelling of each directory (as given, cleaned,
// absolute) in the report's free text (warnings, notes, evidence sources
// and files, the source) with its DisplayPath, so that a path the engine
// or the operating system wrote into a message does not leak where the
// snapshot lay.
func HidePaths(rep *report.Report, dirs []string) {
	var pairs []string
	for _, d := range dirs {
		show := DisplayPath(d)
		forms := []string{d, filepath.Clean(d)}
		if abs, err := filepath.Abs(d); err == nil {
			forms = append(forms, abs)
		}
		for _, f := range forms {
			if f != "" && f != "." && f != show {
				pairs = append(pairs, f, show)
			}
		}
	}
	if len(pairs) == 0 {
		return
	}
	// Longer forms first, so an absolute path is not half replaced by a
	// relative one it ends with.
	sortPairsByLength(pairs)
	r := strings.NewReplacer(pairs...)
	fix := func(ss []string) {
		for i := range ss {
			ss[i] = r.Replace(ss[i])
		}
	}
	rep.Source = r.Replace(rep.Source)
	fix(rep.Warnings)
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		fix(j.Warnings)
		fix(j.Notes)
		for k := range j.Findings {
			hideInFinding(&j.Findings[k], r)
		}
		if j.Primary != nil {
			hideInFinding(j.Primary, r)
		}
	}
}

func hideInFinding(f *report.Finding, r *strings.Replacer) {
	for i := range f.Evidence {
		f.Evidence[i].Source = r.Replace(f.Evidence[i].Source)
		f.Evidence[i].File = r.Replace(f.Evidence[i].File)
	}
}

func sortPairsByLength(pairs []string) {
	type pair struct{ from, to string }
	ps := make([]pair, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		ps = append(ps, pair{pairs[i], pairs[i+1]})
	}
	sort.SliceStable(ps, func(a, b int) bool { return len(ps[a].from) > len(ps[b].from) })
	for i, p := range ps {
		pairs[2*i], pairs[2*i+1] = p.from, p.to
	}
}
