package logscan

import (
	"bytes"
	"regexp"
	"unicode/utf8"
)

// onHit collects the targets of an automaton hit, once per record each,
// with where their matches may start at the earliest.
func (st *scanState) onHit(li int32, end int) {
	l := &st.s.ac.lits[li]
	start := int32(end - len(l.orig))
	for i, t := range l.targets {
		back := l.backs[i]
		from := int32(-1)
		if back >= 0 {
			from = max(0, start-back)
		}
		if back == 0 && st.s.anchors[t] != nil {
			if len(st.occ) < maxOccurrences {
				st.occ = append(st.occ, occurrence{t, start})
			} else {
				back = -1 // forget the shortcut for t
			}
		}
		if st.mark[t] != st.gen {
			st.mark[t] = st.gen
			st.cands = append(st.cands, t)
			st.from[t] = from
			st.anch[t] = back == 0
			continue
		}
		if st.from[t] >= 0 && (from < 0 || from < st.from[t]) {
			st.from[t] = from
		}
		st.anch[t] = st.anch[t] && back == 0
	}
}

// onTarget adds a target without a literal position: its regexp
// searches the whole record.
func (st *scanState) onTarget(t int32) {
	if st.mark[t] != st.gen {
		st.mark[t] = st.gen
		st.cands = append(st.cands, t)
	}
	st.from[t] = -1
	st.anch[t] = false
}

// maxOccurrences bounds the literal occurrences remembered per record;
// beyond it, targets fall back to a windowed search of the record.
const maxOccurrences = 64

type occurrence struct {
	target int32
	start  int32
}

// search runs target t's regexp re on text the cheapest way that gives
// the same result as re on the whole record. When every gate occurrence
// of t on the record is of a literal that matches start with, a match can
// only start at one of them, so re is tried anchored at each (with the
// preceding rune as context for \b) instead of at every position.
// Otherwise the search starts just before the earliest position a match
// may start at (see lit.back). loc, when submatch is set, is relative to
// text.
func (st *scanState) search(t int32, re *regexp.Regexp, text []byte, submatch bool) ([]int, bool) {
	if a := st.s.anchors[t]; a != nil && st.anch[t] {
		return st.searchAnchored(t, a, text, submatch)
	}
	w := st.window(t, text)
	if w == 0 {
		if !submatch {
			return nil, re.Match(text)
		}
		loc := re.FindSubmatchIndex(text)
		return loc, loc != nil
	}
	loc := re.FindSubmatchIndex(text[w:])
	if loc == nil {
		return nil, false
	}
	if loc[0] == 0 {
		// No true match starts at w, the rune kept for context: this one
		// saw the start of text there (^, \b). Ask the whole record.
		loc = re.FindSubmatchIndex(text)
		return loc, loc != nil
	}
	shift(loc, w)
	return loc, true
}

// window returns where the search of target t starts: one rune before
// the earliest position a match may start at (so that \b sees the rune
// before), or 0.
func (st *scanState) window(t int32, text []byte) int {
	w := int(st.from[t]) - 1
	if w <= 0 {
		return 0
	}
	for w > 0 && !utf8.RuneStart(text[w]) {
		w--
	}
	return w
}

func (st *scanState) searchAnchored(t int32, a *anchored, text []byte, submatch bool) ([]int, bool) {
	var qs [maxOccurrences]int32
	n := 0
	for _, o := range st.occ {
		if o.target == t {
			qs[n] = o.start
			n++
		}
	}
	sortInt32(qs[:n])
	prev := int32(-1)
	for _, q := range qs[:n] {
		if q == prev {
			continue
		}
		prev = q
		base, r := int(q), a.zero
		if q > 0 {
			base, r = int(q)-1, a.ctx
			for base > 0 && !utf8.RuneStart(text[base]) {
				base--
			}
		}
		if !submatch {
			if r.Match(text[base:]) {
				return nil, true
			}
			continue
		}
		if loc := r.FindSubmatchIndex(text[base:]); loc != nil {
			shift(loc, base)
			loc[0] = int(q)
			return loc, true
		}
	}
	return nil, false
}

func shift(loc []int, by int) {
	for i, v := range loc {
		if v >= 0 {
			loc[i] = v + by
		}
	}
}

func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func hasFoldKS(text []byte) bool {
	return (bytes.IndexByte(text, 0xE2) >= 0 && bytes.Contains(text, []byte("\u212A"))) ||
		(bytes.IndexByte(text, 0xC5) >= 0 && bytes.Contains(text, []byte("\u017F")))
}
