// Package fsname turns names that come from a cluster or a snapshot into
// file names. Object names are attacker-controllable (anyone who can
// create a pod names it), so a file name derived from one must stay one
// plain path element wherever it is joined.
package fsname

import "strings"

// MaxLen bounds a name in bytes, well below NAME_MAX (255) once a suffix
// such as ".previous.log" or ".zh.html" is added.
const MaxLen = 200

// Safe reduces s to one path element of ASCII letters, digits, '-', '_'
// and '.', at most MaxLen bytes:
//
//   - every other character (separators, NUL, control and non-ASCII
//     characters) becomes '_';
//   - every leading dot becomes '_', so the result is never ".", "..",
//     a hidden file or a name a shell glob skips;
//   - an empty name becomes "_".
//
// Valid Kubernetes names (DNS labels and subdomains up to MaxLen) start
// with a letter or digit and pass through unchanged. Distinct inputs can
// give the same result ("a/b" and "a_b"); callers that need one file per
// object resolve that themselves.
func Safe(s string) string {
	var b strings.Builder
	leading := true
	for _, r := range s {
		if b.Len() >= MaxLen {
			break
		}
		switch {
		case r == '.' && leading:
			b.WriteByte('_')
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
			leading = false
		default:
			b.WriteByte('_')
			leading = false
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
