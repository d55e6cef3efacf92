package site

import (
	"path"
	"strconv"
	"strings"
)

// maxSlug bounds file name length; object names are at most 253 bytes but
// a namespace, a name and a kind together can exceed what some file systems
// accept.
const maxSlug = 120

// slug turns untrusted text (object names, rule IDs, categories) into a
// file name that cannot leave its folder: lower-case ASCII letters, digits,
// '-', '_' and single dots, never starting with a dot. Lower-casing keeps
// names distinct on case-insensitive file systems; collisions are resolved
// by the caller.
//
// It differs from internal/fsname.Safe on purpose: a slug is part of a
// page's URL, which people read and share, so it is lower case, folds runs
// of separators into one '-' and is shorter; fsname keeps a valid object
// name as it is, so that a snapshot's or a report's files carry the
// object's own name. Changing either would move every published page.
func slug(s string) string {
	var b strings.Builder
	lastSep := true
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
			lastSep = false
		case r == '.' || r == '-':
			if !lastSep {
				b.WriteRune(r)
			}
			lastSep = true
		default:
			if !lastSep {
				b.WriteByte('-')
			}
			lastSep = true
		}
		if b.Len() >= maxSlug {
			break
		}
	}
	out := strings.Trim(b.String(), ".-")
	if out == "" {
		return "x"
	}
	return out
}

// slugger hands out unique slugs in the order asked, so the same input
// always gets the same names.
type slugger map[string]bool

func (u slugger) unique(base string) string {
	s := base
	for n := 2; u[s]; n++ {
		s = base + "-" + strconv.Itoa(n)
	}
	u[s] = true
	return s
}

// safeJoin reports whether rel, a slash-separated output path, stays inside
// the output folder. Slugs already guarantee it; this is the second check
// before anything is written.
func safeJoin(rel string) bool {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") {
		return false
	}
	c := path.Clean(rel)
	return c == rel && c != "." && c != ".." && !strings.HasPrefix(c, "../")
}
