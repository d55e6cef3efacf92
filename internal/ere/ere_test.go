package ere

import (
	"bufio"
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/traindoc/traindoc/engine/policy"
)

func TestTranslate(t *testing.T) {
	cases := []struct{ in, want string }{
		{`\d+ms`, `[0-9]+ms`},
		{`(?i)oom`, `[Oo][Oo][Mm]`},
		{`(?:ab|cd)e`, `(ab|cd)e`},
		{`a.*?b`, `a.*b`},
		{`x{2,3}`, `x{2,3}`},
		{`x{2,}`, `x{2,}`},
		{`(?:ab){2}`, `(ab){2}`},
		{`\bword\b`, `\bword\b`},
		{`\s*:\S+`, `\s*:\S+`},
		{`\w+\W`, `\w+\W`},
		{`[\w.-]`, `([.0-9A-Z_a-z]|-)`},
		{`[^\]]`, `[^]]`},
		{`[^"]+`, `[^"]+`},
		{`\(pid=\d+\)`, `\(pid=[0-9]+\)`},
		{`a\.b\[c\]\{d\}\|\^\$\\`, `a\.b\[c\]\{d\}\|\^\$\\`},
		{`a[^\n]*b`, `a.*b`},
		{`(?P<size>[\d.]+) GiB`, `([.0-9]+) GiB`},
		{`^start|end$`, `^start|end$`},
		{`[a-z&&]`, `([a-z]|&)`},
		{`(?i)ks`, `[Kk][Ss]`},
		{`(?i)[^a-z]`, `[^A-Za-z]`},
	}
	for _, c := range cases {
		got, err := Translate(c.in)
		if err != nil {
			t.Errorf("Translate(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("Translate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBuiltinPatternsAgree translates every built-in signature and
// progress pattern and checks, on every line of the fixtures' logs, that
// the rewritten pattern matches exactly the lines the original does; and
// when GNU grep or ripgrep are installed, that they count the same lines
// with it.
func TestBuiltinPatternsAgree(t *testing.T) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := corpus(t)
	corpusFile := filepath.Join(t.TempDir(), "corpus.log")
	if err := os.WriteFile(corpusFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type tool struct {
		argv    []string
		env     string
		dialect Dialect
	}
	tools := map[string]tool{}
	if p, err := exec.LookPath("grep"); err == nil {
		// The C locale is grep's fast byte mode; the counts must not
		// depend on it.
		tools["grep"] = tool{[]string{p, "-E", "-c"}, "LC_ALL=C", Grep}
		tools["grep (UTF-8)"] = tool{[]string{p, "-E", "-c"}, "LC_ALL=C.UTF-8", Grep}
	}
	if p, err := exec.LookPath("rg"); err == nil {
		tools["rg"] = tool{[]string{p, "-c", "--no-config", "--"}, "", Ripgrep}
		tools["rg (grep dialect)"] = tool{[]string{p, "-c", "--no-config", "--"}, "", Grep}
	}
	for _, decl := range [][]map[string]any{e.Signatures, e.ProgressPatterns} {
		for _, m := range decl {
			id, _ := m["id"].(string)
			pattern, _ := m["pattern"].(string)
			out, err := Translate(pattern)
			if err != nil {
				t.Errorf("%s: %v", id, err)
				continue
			}
			orig, tr := regexp.MustCompile(pattern), regexp.MustCompile(out)
			want := 0
			for _, l := range lines {
				if orig.MatchString(l) {
					want++
				}
			}
			if len(tools) == 0 {
				// Without the tools, Go itself reads the rewritten
				// pattern: its syntax is a superset of theirs.
				n := 0
				for _, l := range lines {
					if tr.MatchString(l) {
						n++
					}
				}
				if n != want {
					t.Errorf("%s: %q matches %d lines, rewritten %q %d", id, pattern, want, out, n)
				}
			}
			for name, tl := range tools {
				p, err := TranslateFor(pattern, tl.dialect)
				if err != nil {
					t.Errorf("%s: %v", id, err)
					continue
				}
				cmd := exec.Command(tl.argv[0], append(tl.argv[1:], p, corpusFile)...)
				cmd.Env = append(os.Environ(), tl.env)
				res, _ := cmd.Output() // exit 1 is "no line matched"
				got, err := strconv.Atoi(strings.TrimSpace(string(res)))
				if err != nil {
					got = 0
				}
				if got != want {
					t.Errorf("%s: %s counts %d lines with %q, traindoc %d", id, name, got, p, want)
				}
			}
		}
	}
	t.Logf("%d lines, tools %v", len(lines), slices.Collect(maps.Keys(tools)))
}

// corpus is the distinct valid UTF-8 lines of the fixtures' logs and
// in-pod outputs: all of a short file, the first and last lines of a long
// one (where the failures are), fewer under -short.
func corpus(t *testing.T) []string {
	t.Helper()
	head, tail := 30, 120
	if testing.Short() {
		head, tail = 5, 25
	}
	var lines []string
	seen := map[string]bool{}
	for _, glob := range []string{"../../fixtures/*/logs/*/*.log", "../../fixtures/*/logs/*/*/*.log", "../../fixtures/*/exec/*/*.txt", "../../fixtures/*/exec/*/*/*.txt"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.Contains(f, "big-million-lines") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var fl []string
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				fl = append(fl, sc.Text())
			}
			if len(fl) > head+tail {
				fl = append(fl[:head:head], fl[len(fl)-tail:]...)
			}
			for _, l := range fl {
				if utf8.ValidString(l) && !strings.ContainsRune(l, 0) && !seen[l] {
					seen[l] = true
					lines = append(lines, l)
				}
			}
		}
	}
	if len(lines) < 500 {
		t.Fatalf("only %d lines of fixture logs", len(lines))
	}
	return lines
}
