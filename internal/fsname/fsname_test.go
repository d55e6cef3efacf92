package fsname

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSafe(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		name, in, want string
	}{
		{"kubernetes name unchanged", "llm70b-pt-worker-17", "llm70b-pt-worker-17"},
		{"subdomain unchanged", "train.v2.team-a", "train.v2.team-a"},
		{"upper case and underscore kept", "My_Job", "My_Job"},
		{"empty", "", "_"},
		{"dot", ".", "_"},
		{"dot dot", "..", "__"},
		{"three dots", "...", "___"},
		{"hidden file", ".bashrc", "_bashrc"},
		{"leading dots then name", "..x", "__x"},
		{"dots inside kept", "a..b", "a..b"},
		{"trailing dot kept", "a.", "a."},
		{"dot after replaced leading char", "/.x", "_.x"},
		{"parent traversal", "../../etc/passwd", "___.._etc_passwd"},
		{"slash", "a/b", "a_b"},
		{"backslash", `a\b`, "a_b"},
		{"absolute path", "/etc", "_etc"},
		{"NUL", "a\x00b", "a_b"},
		{"newline", "a\nb", "a_b"},
		{"space", "a b", "a_b"},
		{"non-ASCII is one '_' per character", "训练", "__"},
		{"invalid UTF-8", "a\xffb", "a_b"},
		{"long name cut to MaxLen", long, long[:MaxLen]},
		{"long name of dots", strings.Repeat(".", 300), strings.Repeat("_", MaxLen)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Safe(tt.in); got != tt.want {
				t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzSafe checks what every caller relies on, whatever the input: one
// non-empty path element, not hidden, not "." or "..", within MaxLen, and
// unchanged when already safe.
func FuzzSafe(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../x", "a/b", "a\x00", ".hidden", "训练", strings.Repeat("é", 150)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Safe(s)
		switch {
		case got == "":
			t.Fatalf("Safe(%q) is empty", s)
		case len(got) > MaxLen:
			t.Fatalf("Safe(%q) has %d bytes, more than %d", s, len(got), MaxLen)
		case strings.HasPrefix(got, "."):
			t.Fatalf("Safe(%q) = %q starts with a dot", s, got)
		case strings.ContainsAny(got, "/\\\x00") || filepath.Base(got) != got:
			t.Fatalf("Safe(%q) = %q is not one path element", s, got)
		}
		if again := Safe(got); again != got {
			t.Fatalf("Safe is not idempotent: Safe(%q) = %q, Safe(%q) = %q", s, got, got, again)
		}
	})
}
