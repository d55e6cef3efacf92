package logscan

import (
	"bytes"
	"math/rand"
	"reflect"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		want    []literal
	}{
		{`CUDA out of memory`, []literal{{"CUDA out of memory", false}}},
		{`(?i)cuda out of memory`, []literal{{"cuda out of memory", true}}},
		{`NCCL error in: (?P<where>\S+)`, []literal{{"NCCL error in: ", false}}},
		{`Sending process \d+ closing signal SIGTERM`, []literal{{" closing signal SIGTERM", false}}},
		{`(?:foo|bar)baz\d+`, []literal{{"baz", false}}},
		{`\d+(?:Killed|Terminated)`, []literal{{"Killed", false}, {"Terminated", false}}},
		{`[Ee]rror: x`, []literal{{"error: x", true}}},
		{`^\s*\d+%\|`, []literal{{"%|", false}}},
		{`a+bcd`, []literal{{"bcd", false}}},
		{`\bexit code \d+\b`, []literal{{"exit code ", false}}},
		{`(?:abc)?\d+`, nil},
		{`.*`, nil},
		{`x|\d`, nil},
		{`(?i)caf\x{e9} ok`, []literal{{"caf", true}}}, // é has case variants: cut
		{`(?i)[a-z]+ 错误 x`, []literal{{" 错误 x", true}}},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := requiredLiterals(re.Simplify())
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.pattern, got, tt.want)
		}
	}
}

// TestAutomatonAgainstNaive compares the automaton with a plain substring
// search over random texts drawn from a small alphabet, where overlaps
// and shared prefixes are frequent.
func TestAutomatonAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const alphabet = "abAB c"
	randStr := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return string(b)
	}
	for round := 0; round < 200; round++ {
		var lits []acLiteral
		seen := map[string]bool{}
		for len(lits) < 1+rng.Intn(12) {
			s := randStr(1 + rng.Intn(4))
			fold := rng.Intn(2) == 0
			if fold {
				s = strings.ToLower(s)
			}
			key := s + map[bool]string{true: "/i"}[fold]
			if seen[key] {
				continue
			}
			seen[key] = true
			lits = append(lits, acLiteral{orig: []byte(s), fold: fold, targets: []int32{int32(len(lits))}})
		}
		a := newAutomaton(lits)
		for i := 0; i < 20; i++ {
			text := []byte(randStr(rng.Intn(40)))
			got := map[int32]bool{}
			a.scan(text, func(li int32, _ int) { got[li] = true })
			for li, l := range lits {
				hay := text
				if l.fold {
					hay = bytes.ToLower(text)
				}
				if want := bytes.Contains(hay, l.orig); want != got[int32(li)] {
					t.Fatalf("literal %q (fold %v) in %q: got %v, want %v", l.orig, l.fold, text, got[int32(li)], want)
				}
			}
		}
	}
}

// TestPrefilterNeverLosesMatches checks, for patterns with derived
// literals, that every line the regexp matches passes the prefilter.
func TestPrefilterNeverLosesMatches(t *testing.T) {
	patterns := []string{
		`(?i)connection (?:reset|refused)`, `NCCL (?:WARN|INFO) .*timeout`, `[Ee]rror code (\d+)`,
		`(?i)KILLED`, `x{2,3}yz`, `(?:ab)+c`, `(?i)straße`,
	}
	var sigs []map[string]any
	for i, p := range patterns {
		sigs = append(sigs, sig(string(rune('a'+i)), p, ""))
	}
	s := mustCompile(t, sigs, nil)
	lines := []string{
		"CONNECTION REFUSED", "Connection reset by peer", "NCCL WARN socket timeout", "error code 5", "Error code 7",
		"was \u212Ailled", "xxyz", "xxxyz", "ababc", "STRA\u1E9EE", "stra\u017Fse", "nothing",
	}
	lf := scanString(t, s, strings.Join(lines, "\n"), Options{})
	for i, p := range patterns {
		re := regexp.MustCompile(p)
		want := 0
		for _, l := range lines {
			if re.MatchString(l) {
				want++
			}
		}
		if got := lf.Matches[string(rune('a'+i))].Count; got != want {
			t.Errorf("%s: %d matches, regexp alone finds %d", p, got, want)
		}
	}
	ids := keys(lf.Matches)
	sort.Strings(ids)
	t.Logf("matched: %v", ids)
}
