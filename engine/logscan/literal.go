package logscan

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A literal is a string that a line must contain for a pattern to match.
// Fold marks an ASCII-case-insensitive literal; its text is lower-cased.
type literal struct {
	text string
	fold bool
}

// maxAlternatives bounds the literal set derived from an alternation: a
// set any larger costs more in the automaton than it saves in regexps.
const maxAlternatives = 16

// litInfo describes what a regexp node guarantees about its matches.
type litInfo struct {
	// exact is set when the node always matches exactly one string
	// (ignoring ASCII case when exactFold): it can be glued to its
	// neighbours in a concatenation.
	exact     *literal
	exactFold bool
	// req is a set of literals one of which every match contains; nil
	// when nothing is known.
	req []literal
}

// requiredLiterals derives from a regexp a small set of literals at least
// one of which every match must contain. It returns nil when no such set
// is known, in which case the pattern must be tried on every line. The
// derivation is conservative: it only ever widens the set of candidate
// lines (case folding where the regexp folds, shorter literals where a
// literal would be unsafe), never narrows it.
func requiredLiterals(re *syntax.Regexp) []literal {
	info := analyse(re)
	var out []literal
	for _, l := range info.req {
		l = safeLiteral(l)
		if l.text == "" {
			return nil
		}
		out = append(out, l)
	}
	return dedupLiterals(out)
}

func analyse(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		l := literal{text: string(re.Rune), fold: fold}
		return litInfo{exact: &l, req: []literal{l}}
	case syntax.OpCharClass:
		if r, fold, ok := singleRuneClass(re.Rune); ok {
			l := literal{text: string(r), fold: fold}
			return litInfo{exact: &l, req: []literal{l}}
		}
		return litInfo{}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary,
		syntax.OpNoWordBoundary:
		// Zero-width: neighbours stay adjacent in the text.
		l := literal{}
		return litInfo{exact: &l}
	case syntax.OpCapture:
		return analyse(re.Sub[0])
	case syntax.OpPlus:
		return litInfo{req: analyse(re.Sub[0]).req}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return litInfo{req: analyse(re.Sub[0]).req}
		}
		return litInfo{}
	case syntax.OpConcat:
		return analyseConcat(re.Sub)
	case syntax.OpAlternate:
		var set []literal
		for _, sub := range re.Sub {
			r := analyse(sub).req
			if len(r) == 0 {
				return litInfo{}
			}
			set = append(set, r...)
		}
		set = dedupLiterals(set)
		if len(set) > maxAlternatives {
			return litInfo{}
		}
		return litInfo{req: set}
	}
	return litInfo{}
}

func analyseConcat(subs []*syntax.Regexp) litInfo {
	var (
		best    []literal
		run     strings.Builder
		runFold bool
		allExac = true
	)
	flush := func() {
		if run.Len() > 0 {
			best = better(best, []literal{{text: run.String(), fold: runFold}})
		}
		run.Reset()
		runFold = false
	}
	for _, sub := range subs {
		info := analyse(sub)
		if info.exact != nil {
			run.WriteString(info.exact.text)
			runFold = runFold || info.exact.fold
			continue
		}
		allExac = false
		flush()
		best = better(best, info.req)
	}
	if allExac {
		l := literal{text: run.String(), fold: runFold}
		info := litInfo{exact: &l}
		if l.text != "" {
			info.req = []literal{l}
		}
		return info
	}
	flush()
	return litInfo{req: best}
}

// better picks the more selective of two literal sets: the one whose
// shortest member is longer, then the smaller set.
func better(a, b []literal) []literal {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	ma, mb := minLen(a), minLen(b)
	switch {
	case mb > ma:
		return b
	case mb < ma:
		return a
	case len(b) < len(a):
		return b
	}
	return a
}

func minLen(set []literal) int {
	m := -1
	for _, l := range set {
		if n := len(safeLiteral(l).text); m < 0 || n < m {
			m = n
		}
	}
	return m
}

// singleRuneClass recognises [x] and [xX]: classes that stand for one
// character, possibly in either ASCII case.
func singleRuneClass(ranges []rune) (rune, bool, bool) {
	switch len(ranges) {
	case 2:
		if ranges[0] == ranges[1] {
			return ranges[0], false, true
		}
	case 4:
		if ranges[0] == ranges[1] && ranges[2] == ranges[3] {
			a, b := ranges[0], ranges[2]
			if a < utf8.RuneSelf && b < utf8.RuneSelf && a != b && unicode.ToLower(a) == unicode.ToLower(b) {
				return unicode.ToLower(a), true, true
			}
		}
	}
	return 0, false, false
}

// safeLiteral lower-cases a folding literal for the ASCII-folding
// automaton. Go's case folding also maps some non-ASCII letters onto each
// other (é/É) and onto ASCII (K, the Kelvin sign, folds to k; ſ to s);
// ASCII folding cannot see those, so the literal is cut at non-ASCII
// letters that have case variants and the longest safe piece is kept. The
// k and s cases are handled by the scanner (see Scanner.foldKS).
func safeLiteral(l literal) literal {
	if !l.fold {
		return l
	}
	var best, cur strings.Builder
	keep := func() {
		if cur.Len() > best.Len() {
			best.Reset()
			best.WriteString(cur.String())
		}
		cur.Reset()
	}
	for _, r := range l.text {
		if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
			keep()
			continue
		}
		if r < utf8.RuneSelf {
			r = unicode.ToLower(r)
		}
		cur.WriteRune(r)
	}
	keep()
	return literal{text: best.String(), fold: true}
}

func dedupLiterals(in []literal) []literal {
	seen := make(map[literal]bool, len(in))
	out := in[:0:0]
	for _, l := range in {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// leadingLiteral returns the literal every match starts with (after
// zero-width assertions; empty when the regexp starts otherwise), whether
// any of it matches case-insensitively, and whether the regexp is
// anchored at the start of the text.
func leadingLiteral(re *syntax.Regexp) (lead string, fold, anchored bool) {
	var b strings.Builder
	var walk func(n *syntax.Regexp) (stop bool)
	walk = func(n *syntax.Regexp) bool {
		switch n.Op {
		case syntax.OpConcat:
			for _, s := range n.Sub {
				if walk(s) {
					return true
				}
			}
			return false
		case syntax.OpCapture:
			return walk(n.Sub[0])
		case syntax.OpBeginLine, syntax.OpBeginText:
			anchored = true
			return false
		case syntax.OpEndLine, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
			return false
		case syntax.OpLiteral:
			b.WriteString(string(n.Rune))
			fold = fold || n.Flags&syntax.FoldCase != 0
			return false
		case syntax.OpCharClass:
			if r, f, ok := singleRuneClass(n.Rune); ok {
				b.WriteRune(r)
				fold = fold || f
				return false
			}
		}
		return true
	}
	walk(re)
	return b.String(), fold, anchored
}

// searchBack says how far before the first occurrence of its gating
// literal a match of re can start, or -1 when it cannot be bounded. It is
// bounded when every gating literal lies inside the literal the regexp
// starts with: the match then starts at most len(lead) bytes before the
// literal's first occurrence, and the regexp need not try the positions
// before that (Go's regexp tries every start position of a line when a
// pattern has no case-sensitive literal prefix, which dominates the cost
// of confirming a hit). Anchored patterns are cheap already and keep -1.
func searchBack(re *syntax.Regexp, gates []literal) int {
	lead, _, anchored := leadingLiteral(re)
	if anchored || lead == "" || len(gates) == 0 {
		return -1
	}
	ll := strings.ToLower(lead)
	for _, g := range gates {
		if !strings.Contains(ll, strings.ToLower(g.text)) {
			return -1
		}
	}
	return len(lead)
}
