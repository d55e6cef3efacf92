package logscan

import (
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Literal extraction.
//
// A gate is a small set of literals at least one of which occurs in every
// match of a regexp: a line that holds none of them cannot match, and the
// automaton finds them all in one pass. The gate is derived from the
// parsed regexp the way literal optimisers of fast grep tools do it:
// every node yields the finite sets its matches start with (pre) and end
// with (suf), exact when they are the whole match. Concatenation takes
// bounded cross products of exact sets, so that "[Ll]oss (?:is|was) nan"
// yields "loss is nan" and "loss was nan" rather than "oss "; alternation
// takes unions. At every node the required sets found so far compete and
// the most selective one, by an estimate of how often a literal occurs in
// a training log, is kept.
//
// A literal may also carry checks on the bytes next to it, verified by the
// automaton when it reports the literal: a word boundary (\bstep must not
// follow "global_"), or a class after optional filler ("iterations:\s*[1-9]"
// must not see "iterations:   0"). They make gates selective where the
// literal alone is common.
//
// Every step is conservative: sets only ever stand for more text than the
// regexp matches (ASCII case folding where the regexp folds, a literal cut
// short, a check dropped), never less.

// maxSet bounds every literal set: beyond it the set is shortened.
const maxSet = 64

// maxClass is the largest character class expanded into literals.
const maxClass = 10

// edgeKind says what an edge checks.
type edgeKind uint8

const (
	edgeNone edgeKind = iota
	// edgeBoundary is \b next to the literal, resolved against the
	// literal's first or last byte once the literal is known.
	edgeBoundary
	// edgeClass: after skipping any bytes in skip (at most maxSkip), the
	// next byte is in want, or the record ends there when atEdge.
	edgeClass
)

// maxSkip bounds the bytes an edge check skips; beyond it the check
// passes, which keeps verification cheap on pathological lines.
const maxSkip = 64

// edge is a check on the bytes before or after a literal occurrence.
type edge struct {
	kind   edgeKind
	skip   byteSet
	want   byteSet
	atEdge bool
}

// lit is one literal of a set. Text is lower-cased when fold (ASCII case
// folding). Exact marks, in pre and suf sets, a literal that is a whole
// match, which concatenation may extend. Back, in gates, is how far an
// occurrence of the literal inside a match may start after the start of
// the match: 0 when matches start with it, -1 when unbounded.
type lit struct {
	text          string
	fold          bool
	exact         bool
	back          int
	before, after edge
}

func (l lit) key() lit { l.exact, l.back = false, 0; return l }

// info is what analysis knows about a node.
type info struct {
	pre, suf []lit // nil: unknown
	inner    *gate
	maxLen   int // longest match in bytes, -1 unbounded
	first    byteSet
	last     byteSet
	nullable bool
	// anchorOnly: the node is zero-width and holds ^ or \A.
	anchorOnly bool
}

// gate is a required literal set and its estimated cost: the share of
// log lines it lets through.
type gate struct {
	lits []lit
	cost float64
}

// extractGate derives the gate of a parsed, simplified regexp, or nil
// when there is none.
func extractGate(re *syntax.Regexp) *gate {
	in := analyse(re)
	best := in.inner
	best = bestGate(best, preGate(in.pre))
	best = bestGate(best, sufGate(in.suf, in.maxLen))
	return best
}

func analyse(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpLiteral:
		return analyseLiteral(re)
	case syntax.OpCharClass:
		return analyseClass(re)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		first, last, _ := nodeBytes(re)
		return info{maxLen: utf8.UTFMax, first: first, last: last}
	case syntax.OpBeginLine, syntax.OpBeginText:
		in := emptyInfo()
		in.anchorOnly = true
		return in
	case syntax.OpEndLine, syntax.OpEndText, syntax.OpWordBoundary,
		syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return emptyInfo()
	case syntax.OpCapture:
		return analyse(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		sub := analyse(re.Sub[0])
		first, last, _ := nodeBytes(re)
		in := info{first: first, last: last, nullable: true, maxLen: -1}
		if re.Op == syntax.OpQuest {
			in.maxLen = sub.maxLen
			in.pre = orEmpty(sub.pre)
			in.suf = orEmpty(sub.suf)
		} else {
			in.pre = orEmpty(inexact(sub.pre, true))
			in.suf = orEmpty(inexact(sub.suf, false))
		}
		return in
	case syntax.OpPlus:
		sub := analyse(re.Sub[0])
		return info{pre: inexact(sub.pre, true), suf: inexact(sub.suf, false), inner: subGate(sub),
			maxLen: -1, first: sub.first, last: sub.last, nullable: sub.nullable}
	case syntax.OpRepeat:
		return analyseRepeat(re)
	case syntax.OpConcat:
		return analyseConcat(re.Sub)
	case syntax.OpAlternate:
		return analyseAlternate(re.Sub)
	}
	// OpNoMatch and anything unknown: no knowledge.
	first, last, nullable := nodeBytes(re)
	return info{maxLen: -1, first: first, last: last, nullable: nullable}
}

func emptyInfo() info {
	return info{pre: []lit{{exact: true}}, suf: []lit{{exact: true}}, nullable: true}
}

// analyseLiteral handles a literal string. Under (?i) Go folds every
// rune with its Unicode case variants; ASCII letters are folded by the
// automaton (the Kelvin sign and long s, which Go also folds onto k and
// s, are handled by the scanner, see Scanner.foldKS), other letters with
// case variants are expanded into their variants.
func analyseLiteral(re *syntax.Regexp) info {
	fold := re.Flags&syntax.FoldCase != 0
	if !fold {
		return exactInfo(re, []lit{{text: string(re.Rune), exact: true}})
	}
	var subs []*syntax.Regexp
	var run []rune
	flush := func() {
		if len(run) > 0 {
			subs = append(subs, &syntax.Regexp{Op: syntax.OpLiteral, Flags: syntax.FoldCase, Rune: run})
			run = nil
		}
	}
	for _, r := range re.Rune {
		if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
			flush()
			subs = append(subs, &syntax.Regexp{Op: syntax.OpCharClass, Rune: foldRanges(r)})
			continue
		}
		run = append(run, r)
	}
	flush()
	if len(subs) == 1 && subs[0].Op == syntax.OpLiteral {
		return exactInfo(re, []lit{{text: lowerASCII(string(re.Rune)), fold: true, exact: true}})
	}
	return analyseConcat(subs)
}

// foldRanges is the class of a rune and its case variants.
func foldRanges(r rune) []rune {
	rs := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		rs = append(rs, f)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	var out []rune
	for _, x := range rs {
		out = append(out, x, x)
	}
	return out
}

func exactInfo(re *syntax.Regexp, set []lit) info {
	first, last, nullable := nodeBytes(re)
	set = normalise(set)
	return info{pre: set, suf: set, maxLen: maxBytes(set, re), first: first, last: last, nullable: nullable}
}

// maxBytes is the longest match of a literal node: the longest encoding
// of each rune among its case variants when folding (K, the Kelvin sign,
// takes three bytes where k takes one).
func maxBytes(set []lit, re *syntax.Regexp) int {
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase == 0 {
		n := 0
		for _, l := range set {
			n = max(n, len(l.text))
		}
		return n
	}
	n := 0
	for _, r := range re.Rune {
		m := utf8.RuneLen(r)
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = max(m, utf8.RuneLen(f))
		}
		n += m
	}
	return n
}

func analyseClass(re *syntax.Regexp) info {
	first, last, nullable := nodeBytes(re)
	in := info{maxLen: 0, first: first, last: last, nullable: nullable}
	n := 0
	for i := 0; i+1 < len(re.Rune); i += 2 {
		n += int(re.Rune[i+1]-re.Rune[i]) + 1
		in.maxLen = max(in.maxLen, utf8.RuneLen(re.Rune[i+1]))
	}
	if n == 0 || n > maxClass {
		return in
	}
	var set []lit
	for i := 0; i+1 < len(re.Rune); i += 2 {
		for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
			set = append(set, lit{text: string(r), exact: true})
		}
	}
	set = normalise(set)
	in.pre, in.suf = set, set
	return in
}

func analyseRepeat(re *syntax.Regexp) info {
	// Simplify rewrites counted repetitions; this keeps the analysis sound
	// for a regexp that was not simplified.
	sub := analyse(re.Sub[0])
	first, last, nullable := nodeBytes(re)
	in := info{maxLen: -1, first: first, last: last, nullable: nullable}
	if re.Max >= 0 && sub.maxLen >= 0 {
		in.maxLen = re.Max * sub.maxLen
	}
	if re.Min == 0 {
		in.pre, in.suf = orEmpty(inexact(sub.pre, true)), orEmpty(inexact(sub.suf, false))
		return in
	}
	in.pre, in.suf, in.inner = inexact(sub.pre, true), inexact(sub.suf, false), subGate(sub)
	return in
}

// subGate is the best gate of a node as a whole.
func subGate(in info) *gate {
	g := in.inner
	g = bestGate(g, preGate(in.pre))
	return bestGate(g, sufGate(in.suf, in.maxLen))
}

func analyseConcat(subs []*syntax.Regexp) info {
	acc := emptyInfo()
	acc.anchorOnly = false
	var pending edge // a check on the bytes before the next node
	for i, sub := range subs {
		si := analyse(sub)
		if si.anchorOnly {
			acc.anchorOnly = acc.maxLen == 0
			if acc.anchorOnly {
				pending = edge{kind: edgeClass, want: lineBreak(sub.Op == syntax.OpBeginLine), atEdge: true}
			}
		}
		switch skip, isStar := starClass(sub); {
		case sub.Op == syntax.OpEndText || sub.Op == syntax.OpEndLine:
			acc.suf = withEdge(acc.suf, edge{kind: edgeClass, want: lineBreak(sub.Op == syntax.OpEndLine), atEdge: true}, true)
		case sub.Op == syntax.OpWordBoundary:
			acc.suf = withEdge(acc.suf, edge{kind: edgeBoundary}, true)
			pending = edge{kind: edgeBoundary}
		case isStar:
			// A run of one class: literals before it may check what
			// follows the run, literals after it what precedes it.
			var next edge
			if i+1 < len(subs) {
				f, _, n := nodeBytes(subs[i+1])
				if !n && !skip.meets(f) {
					acc.suf = withEdge(acc.suf, edge{kind: edgeClass, skip: skip, want: f}, true)
				}
			}
			switch {
			case acc.anchorOnly:
				next = edge{kind: edgeClass, skip: skip, atEdge: true}
			case !acc.nullable && !skip.meets(acc.last):
				next = edge{kind: edgeClass, skip: skip, want: acc.last}
			}
			acc.anchorOnly = false
			pending = next
		case si.maxLen == 0 && si.nullable:
			// Other zero-width nodes keep the position.
		default:
			if pending.kind != edgeNone {
				si.pre = withEdge(si.pre, pending, false)
			}
			pending = edge{}
			if si.pre == nil && !si.nullable {
				acc.suf = withEdge(acc.suf, edge{kind: edgeClass, want: si.first}, true)
			}
			if si.suf == nil && !si.nullable {
				pending = edge{kind: edgeClass, want: si.last}
			}
			acc.anchorOnly = false
		}
		acc = joinConcat(acc, si)
	}
	return acc
}

// lineBreak is what (?m)^ and (?m)$ accept next to them besides the edge.
func lineBreak(multiline bool) byteSet {
	var s byteSet
	if multiline {
		s.add('\n')
	}
	return s
}

// joinConcat appends node b to the concatenation a.
func joinConcat(a, b info) info {
	out := info{
		pre:      concatPre(a.pre, b.pre),
		suf:      concatSuf(a.suf, b.suf),
		maxLen:   -1,
		first:    a.first,
		last:     b.last,
		nullable: a.nullable && b.nullable,
	}
	out.anchorOnly = a.anchorOnly && b.maxLen == 0
	if a.nullable {
		out.first = a.first.union(b.first)
	}
	if b.nullable {
		out.last = a.last.union(b.last)
	}
	if a.maxLen >= 0 && b.maxLen >= 0 {
		out.maxLen = a.maxLen + b.maxLen
	}
	best := a.inner
	best = bestGate(best, sufGate(a.suf, a.maxLen))
	if b.inner != nil {
		best = bestGate(best, shifted(b.inner, a.maxLen))
	}
	if a.suf != nil && b.pre != nil && len(a.suf)*len(b.pre) <= maxSet*maxSet {
		// A literal across the junction: a suffix of a, then a prefix
		// of b; it starts where the suffix does.
		var junction []lit
		for _, x := range a.suf {
			for _, y := range b.pre {
				j := cat(x, y)
				j.back = endBack(a.maxLen, len(x.text))
				junction = append(junction, j)
			}
		}
		best = bestGate(best, gateOf(junction))
	}
	best = bestGate(best, preGate(out.pre))
	best = bestGate(best, sufGate(out.suf, out.maxLen))
	out.inner = best
	return out
}

// shifted is a gate of a node that starts up to by bytes into a match.
func shifted(g *gate, by int) *gate {
	out := &gate{lits: make([]lit, len(g.lits)), cost: g.cost}
	for i, l := range g.lits {
		l.back = addBack(l.back, by)
		out.lits[i] = l
	}
	return out
}

func addBack(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

func maxBack(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return max(a, b)
}

func concatPre(a, b []lit) []lit {
	if a == nil {
		return nil
	}
	var out []lit
	for _, x := range a {
		switch {
		case !x.exact:
			out = append(out, x)
		case b == nil:
			out = append(out, dropOuter(x, true))
		default:
			for _, y := range b {
				out = append(out, cat(x, y))
			}
		}
	}
	return shrink(normalise(out), true)
}

func concatSuf(a, b []lit) []lit {
	if b == nil {
		return nil
	}
	var out []lit
	for _, y := range b {
		switch {
		case !y.exact:
			out = append(out, y)
		case a == nil:
			out = append(out, dropOuter(y, false))
		default:
			for _, x := range a {
				out = append(out, cat(x, y))
			}
		}
	}
	return shrink(normalise(out), false)
}

// cat concatenates two literals; checks between them are dropped.
func cat(x, y lit) lit {
	out := lit{text: x.text + y.text, fold: x.fold || y.fold, exact: x.exact && y.exact}
	if out.fold {
		out.text = lowerASCII(out.text)
	}
	out.before = x.before
	if x.text == "" && x.before.kind == edgeNone {
		out.before = y.before
	}
	out.after = y.after
	if y.text == "" && y.after.kind == edgeNone {
		out.after = x.after
	}
	return out
}

func analyseAlternate(subs []*syntax.Regexp) info {
	var out info
	first := true
	var inner []lit
	innerOK := true
	for _, sub := range subs {
		si := analyse(sub)
		if first {
			out = info{pre: si.pre, suf: si.suf, maxLen: si.maxLen, first: si.first, last: si.last, nullable: si.nullable}
			first = false
		} else {
			out.pre = union(out.pre, si.pre)
			out.suf = union(out.suf, si.suf)
			if out.maxLen >= 0 {
				out.maxLen = max(out.maxLen, si.maxLen)
				if si.maxLen < 0 {
					out.maxLen = -1
				}
			}
			out.first, out.last = out.first.union(si.first), out.last.union(si.last)
			out.nullable = out.nullable || si.nullable
		}
		g := subGate(si)
		if g == nil || !innerOK {
			innerOK = false
			continue
		}
		inner = append(inner, g.lits...)
	}
	out.pre = shrink(normalise(out.pre), true)
	out.suf = shrink(normalise(out.suf), false)
	if innerOK {
		out.inner = gateOf(shrink(normalise(inner), true))
	}
	return out
}

func union(a, b []lit) []lit {
	if a == nil || b == nil {
		return nil
	}
	return append(append([]lit(nil), a...), b...)
}

// orEmpty adds the empty match to a set: the node may match nothing.
func orEmpty(set []lit) []lit {
	if set == nil {
		return nil
	}
	return normalise(append(append([]lit(nil), set...), lit{exact: true}))
}

// inexact marks the literals of a pre (front) or suf set as no longer
// whole matches: a prefix no longer knows what follows it, a suffix what
// precedes it, so those checks go.
func inexact(set []lit, front bool) []lit {
	if set == nil {
		return nil
	}
	out := make([]lit, len(set))
	for i, l := range set {
		if l.exact {
			l = dropOuter(l, front)
		}
		out[i] = l
	}
	return normalise(out)
}

func dropOuter(l lit, front bool) lit {
	l.exact = false
	if front {
		l.after = edge{}
	} else {
		l.before = edge{}
	}
	return l
}

// withEdge puts a check after (or before) every literal of a set that
// has none yet.
func withEdge(set []lit, e edge, after bool) []lit {
	if set == nil {
		return nil
	}
	out := make([]lit, len(set))
	for i, l := range set {
		if after && l.after.kind == edgeNone {
			l.after = e
		} else if !after && l.before.kind == edgeNone {
			l.before = e
		}
		out[i] = l
	}
	return out
}

// normalise merges literals that differ only in ASCII case into one
// folding literal and removes duplicates; checks of duplicates that
// differ are dropped.
func normalise(set []lit) []lit {
	if len(set) < 2 {
		return set
	}
	type k struct {
		text  string
		exact bool
	}
	groups := map[k][]lit{}
	var order []k
	for _, l := range set {
		key := k{lowerASCII(l.text), l.exact}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], l)
	}
	out := make([]lit, 0, len(order))
	for _, key := range order {
		g := groups[key]
		m := g[0]
		for _, l := range g[1:] {
			if l.text != m.text || l.fold != m.fold {
				m.fold = true
				m.text = key.text
			}
			if l.before != m.before {
				m.before = edge{}
			}
			m.back = maxBack(m.back, l.back)
			if l.after != m.after {
				m.after = edge{}
			}
		}
		out = append(out, m)
	}
	return out
}

// shrink keeps a set within maxSet by cutting its literals to a common
// length (keeping their starts when front, else their ends); cut
// literals are no longer exact. It returns nil when nothing fits.
func shrink(set []lit, front bool) []lit {
	if len(set) <= maxSet {
		return set
	}
	longest := 0
	for _, l := range set {
		longest = max(longest, len(l.text))
	}
	for n := longest - 1; n > 0; n-- {
		cut := make([]lit, 0, len(set))
		for _, l := range set {
			if len(l.text) > n {
				if front {
					l.text, l.after = l.text[:n], edge{}
				} else {
					l.text, l.before = l.text[len(l.text)-n:], edge{}
				}
				l.exact = false
			}
			cut = append(cut, l)
		}
		if cut = normalise(cut); len(cut) <= maxSet {
			return cut
		}
	}
	return nil
}

// preGate makes a gate of a pre set: matches start with its literals.
func preGate(set []lit) *gate {
	out := make([]lit, len(set))
	for i, l := range set {
		l.back = 0
		out[i] = l
	}
	return gateOf(out)
}

// sufGate makes a gate of a suf set of a node whose matches are at most
// maxLen bytes long: a literal ends a match, so it starts at most maxLen
// minus its length into it.
func sufGate(set []lit, maxLen int) *gate {
	out := make([]lit, len(set))
	for i, l := range set {
		l.back = endBack(maxLen, len(l.text))
		out[i] = l
	}
	return gateOf(out)
}

// endBack is how far into a match of at most maxLen bytes a literal of n
// bytes that ends the match starts. The literal's bytes are those of the
// text (an ASCII-folding literal occurs in ASCII), so it cannot be
// shorter in the text than n.
func endBack(maxLen, n int) int {
	if maxLen < 0 {
		return -1
	}
	return max(0, maxLen-n)
}

// gateOf makes a gate of a set when the set can gate: no empty literal.
// The set is reduced first: a literal that contains another literal of
// the set (without checks) adds no selectivity, and one that holds a line
// break or carriage return never occurs in a record (records are split
// there), so the matches it stands for cannot happen.
func gateOf(set []lit) *gate {
	if len(set) == 0 {
		return nil
	}
	for _, l := range set {
		if l.text == "" {
			return nil
		}
	}
	kept := make([]lit, 0, len(set))
	for _, l := range set {
		if !strings.ContainsAny(l.text, "\r\n") {
			kept = append(kept, l)
		}
	}
	if len(kept) > 0 {
		set = kept
	}
	set = reduce(set)
	g := &gate{lits: set}
	for _, l := range set {
		g.cost += litCost(l)
	}
	return g
}

// reduce drops literals that contain another literal of the set (one
// without checks): wherever they occur, so does the other. The other's
// back grows by how far into the dropped one it may start.
func reduce(set []lit) []lit {
	set = append([]lit(nil), set...)
	gone := make([]bool, len(set))
	for i := range set {
		for j := range set {
			o, l := &set[j], set[i]
			if i == j || gone[j] || o.before.kind != edgeNone || o.after.kind != edgeNone {
				continue
			}
			var at int
			switch {
			case o.key() == l.key():
				if j > i {
					continue // identical: keep the first
				}
				at = 0
			case o.fold:
				at = strings.Index(lowerASCII(l.text), o.text)
			case !l.fold:
				at = strings.Index(l.text, o.text)
			default:
				at = -1
			}
			if at < 0 {
				continue
			}
			gone[i] = true
			o.back = maxBack(o.back, addBack(l.back, at))
			break
		}
	}
	out := set[:0]
	for i, l := range set {
		if !gone[i] {
			l.exact = false
			out = append(out, l)
		}
	}
	return out
}

// bestGate picks the cheaper gate; on a tie, the one with fewer
// literals, then the one whose literals are closer to the start of
// matches (cheaper to confirm).
func bestGate(a, b *gate) *gate {
	switch {
	case b == nil:
		return a
	case a == nil:
		return b
	case b.cost != a.cost:
		if b.cost < a.cost {
			return b
		}
		return a
	case len(b.lits) != len(a.lits):
		if len(b.lits) < len(a.lits) {
			return b
		}
		return a
	case spread(b) < spread(a):
		return b
	}
	return a
}

// spread sums how far into matches a gate's literals start, an unbounded
// distance counting as a long one.
func spread(g *gate) int {
	n := 0
	for _, l := range g.lits {
		if l.back < 0 {
			n += 1 << 20
		} else {
			n += l.back
		}
	}
	return n
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lower(b[j])
			}
			return string(b)
		}
	}
	return s
}

// safeLiteral turns a hint into a literal for the ASCII-folding
// automaton: under folding it is lower-cased and cut at non-ASCII
// letters that have case variants (Go's folding matches them in ways
// ASCII folding cannot), keeping the longest piece.
func safeLiteral(l lit) lit {
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
	return lit{text: best.String(), fold: true}
}
