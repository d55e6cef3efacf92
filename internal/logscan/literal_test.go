package logscan

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"testing"
)

func gateFor(t *testing.T, pattern string) []string {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	g := extractGate(re.Simplify())
	if g == nil || g.cost >= uselessGate {
		return nil
	}
	var out []string
	for _, l := range g.lits {
		out = append(out, describeLit(l))
	}
	sort.Strings(out)
	return out
}

func TestExtractGate(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{`CUDA out of memory`, []string{`"CUDA out of memory"@0`}},
		{`(?i)cuda out of memory`, []string{`(?i)"cuda out of memory"@0`}},
		{`NCCL error in: (?P<where>\S+)`, []string{`"NCCL error in: "‹[^\x09\x0a\x0c\x0d\x20\x80-\xbf]›@0`}},
		// Case variants written as classes fold into one literal, and
		// alternations multiply out.
		{`[Ll]oss (?:is|was) (?:nan|inf)`, []string{`(?i)"loss is inf"@0`, `(?i)"loss is nan"@0`, `(?i)"loss was inf"@0`, `(?i)"loss was nan"@0`}},
		// A rarer literal wins over the common word before it.
		{`step \d+ .* diverged`, []string{`" diverged"`}},
		// Only the alternatives every match holds one of.
		{`(?:foo|bar)baz\d+`, []string{`"barbaz"@0`, `"foobaz"@0`}},
		{`\d+(?:Killed|Terminated)`, []string{`"Killed"`, `"Terminated"`}},
		// A word boundary becomes a check next to the literal.
		{`(?i)\bstep=(?P<n>\d+)`, []string{`(?i)‹\b›"step="@0`}},
		{`errno: 98\b`, []string{`"errno: 98"‹\b›@0`}},
		// What follows a run of blanks is checked: "iterations:   0" fails.
		{`nan iterations:\s*[1-9]`, []string{`"nan iterations:"‹[\x09\x0a\x0c\x0d\x20]*[1-9]›@0`}},
		{`: not found$`, []string{`": not found"‹edge›@0`}},
		// A literal inside a longer required literal is enough.
		{`abc|xabcx`, []string{`"abc"@-1`}},
		// Nothing required, or nothing selective.
		{`(?:abc)?\d+`, nil},
		{`.*`, nil},
		{`x|\d`, nil},
		{`x\d|yz`, nil},
		// Letters with non-ASCII case variants are spelled out.
		{`(?i)caf\x{e9} ok`, []string{`(?i)"cafÉ ok"@0`, `(?i)"café ok"@0`}},
		{`(?i)[a-z]+ 错误 x`, []string{`(?i)" 错误 x"`}},
	}
	for _, tt := range tests {
		if got := gateFor(t, tt.pattern); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.pattern, got, tt.want)
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

// agreementPatterns exercise every way a gate is derived and used:
// boundaries, anchors, checks after runs, folding (with the Kelvin sign
// and long s), optional parts, alternations, windows and anchored search.
var agreementPatterns = []string{
	`(?i)connection (?:reset|refused)`, `NCCL (?:WARN|INFO) .*timeout`, `[Ee]rror code (\d+)`,
	`(?i)KILLED`, `x{2,3}yz`, `(?:ab)+c`, `(?i)straße`, `(?i)\bstep[\s:=]+(?P<n>\d+)`,
	`\bab\b`, `^\s*(?:ab )?\d+%\|`, `^ab|ba$`, `a\s*[1-9]`, `[1-9]\s*ab`, `(?:ab|ba)?c\b`,
	`\Bab`, `ab\B`, `(?m)^ab`, `ab(?m)$`, `(?i)sk\b`, `(?:\bab|cd\b)\s*(?:e|f)`, `b+a\b`,
	`(?:a|ab)(?:c|bcd)`, `(?:a\s+b|c)d`, `.{2}ab`, `ab.*ab`, `[^a]ab`, `(?U)a+?b`,
	`'(?:loss|abc)': (?:nan|-inf)\b`, `number of a:\s*[1-9]`, `(a|b|\bc)+ab`,
}

// TestScanAgreesWithRegexp checks on random lines that the scanner
// counts and groups exactly what the regexps find line by line: gates,
// checks and search shortcuts never change a result.
func TestScanAgreesWithRegexp(t *testing.T) {
	var sigs []map[string]any
	for i, p := range agreementPatterns {
		sigs = append(sigs, sig(fmt.Sprint(i), p, ""))
	}
	s := mustCompile(t, sigs, nil)
	rng := rand.New(rand.NewSource(7))
	pieces := []string{"a", "b", "c", "d", "e", "f", "ab", "ba", " ", "  ", "\t", ":", "=", "1", "9", "0", "%|",
		"_", "x", "y", "z", "K", "\u212A", "ſ", "ß", "ẞ", "é", "STEP", "step", "connection ", "RESET", "NCCL ",
		"WARN ", "timeout", "Error code ", "'loss': ", "nan", "-inf", "number of a:", "KILLED", "killed", "straSSe", "stra\u017Fe"}
	var b strings.Builder
	var lines []string
	for i := 0; i < 8000; i++ {
		var l strings.Builder
		for n := rng.Intn(12); n >= 0; n-- {
			l.WriteString(pieces[rng.Intn(len(pieces))])
		}
		lines = append(lines, l.String())
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	lf := scanString(t, s, b.String(), Options{MaxSamples: 1})
	for i, p := range agreementPatterns {
		re := regexp.MustCompile(p)
		count, first, firstLine := 0, []string(nil), 0
		for n, l := range lines {
			if m := re.FindStringSubmatch(l); m != nil {
				if count == 0 {
					first, firstLine = m, n+1
				}
				count++
			}
		}
		m := lf.Matches[fmt.Sprint(i)]
		if m.Count != count || m.FirstLine != firstLine {
			t.Errorf("%s: %d matches from line %d, regexp alone: %d from line %d", p, m.Count, m.FirstLine, count, firstLine)
			continue
		}
		for gi, name := range re.SubexpNames() {
			if name != "" && m.Groups[name] != first[gi] {
				t.Errorf("%s: group %s = %q, regexp alone %q", p, name, m.Groups[name], first[gi])
			}
		}
	}
}

// TestHints checks when a rule's hint gates its pattern: when the regexp
// yields nothing selective, or something less selective than the hint.
func TestHints(t *testing.T) {
	tests := []struct {
		pattern, hint string
		want          []string
	}{
		{`\w+ \d+ \w+`, "segfault", []string{`"segfault"`}},
		{`(?i)\w+ \d+ \w+`, "SegFault", []string{`(?i)"segfault"`}},
		{`step \d+ .*exploded`, "step", []string{`"exploded"`}},
		{`\d+ Killed`, "ld was Killed", []string{`"ld was Killed"`}},
	}
	for _, tt := range tests {
		s := mustCompile(t, []map[string]any{sig("x", tt.pattern, tt.hint)}, nil)
		if got := s.Gates()[0].Literals; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s hinted %q: gate %q, want %q", tt.pattern, tt.hint, got, tt.want)
		}
	}
}
