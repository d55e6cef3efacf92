package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestRulesSignatures(t *testing.T) {
	run := func(args ...string) []string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := runWith(append([]string{"rules", "signatures"}, args...), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	}
	text := run()
	ids := map[string]bool{}
	for _, l := range text {
		id, pattern, ok := strings.Cut(l, "\t")
		if !ok || id == "" || ids[id] {
			t.Fatalf("line %q: want a new id, a tab and a pattern", l)
		}
		ids[id] = true
		if _, err := regexp.Compile(pattern); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	for _, want := range []string{"exec.oom-killed.kernel", "launcher.sigkill"} {
		if !ids[want] {
			t.Errorf("no signature %s among %d", want, len(ids))
		}
	}
	goOnly := regexp.MustCompile(`(^|[^\\])\(\?|\\d`)
	if grep := run("-o", "grep"); len(grep) != len(text) || goOnly.MatchString(strings.Join(grep, "\n")) {
		t.Errorf("-o grep: %d patterns for %d signatures, or Go-only syntax left", len(grep), len(text))
	}
	if rg := run("-o", "rg"); len(rg) != len(text) || !strings.Contains(strings.Join(rg, "\n"), "(?-u:\\b)") {
		t.Errorf("-o rg: %d patterns for %d signatures, or no ASCII word boundary", len(rg), len(text))
	}
	if withProgress := run("--progress"); len(withProgress) <= len(text) {
		t.Errorf("--progress adds nothing: %d lines", len(withProgress))
	}
	var out, errb bytes.Buffer
	if code := runWith([]string{"rules", "signatures", "-o", "pcre"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "pcre") {
		t.Errorf("unknown output: exit %d, stderr %q", code, errb.String())
	}
}
