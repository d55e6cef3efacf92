// Package logscan streams container logs once and extracts what the rules
// asked for: matches of the log signatures they declare (with context,
// counts and times), the tail of the log, the last Python traceback and
// training progress read with the progress patterns they declare.
//
// What a line means lives in the rules (Rego), not here: this package only
// knows how to find the lines cheaply. Compile turns all declared patterns
// into one literal automaton plus the regexps that confirm a hit, so that
// a log is read exactly once and most lines are rejected by a single
// pass of the automaton without running any regexp.
package logscan

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
)

// DefaultContext is the number of lines kept before and after a sample
// when a signature does not say.
const DefaultContext = 3

// maxContext bounds the context a signature may ask for, so that a rule
// cannot make the scanner keep an unbounded window of lines.
const maxContext = 50

// tracebackHead is the literal that starts a Python traceback. It is fed
// to the automaton as an internal target so that traceback detection
// costs nothing on lines that do not contain it.
const tracebackHead = "Traceback (most recent call last):"

// Scanner is a compiled set of signatures and progress patterns. It is
// immutable after Compile and safe for concurrent use by many Scans.
type Scanner struct {
	sigs     []signature
	progress []progressPattern
	ac       *automaton
	// always are targets without a usable literal: tried on every line.
	always []int32
	// foldKS are targets that have a folding literal containing k or s:
	// Go's (?i) also matches the Kelvin sign and long s there, which the
	// ASCII-folding automaton cannot see; lines holding those runes try
	// these targets directly.
	foldKS    []int32
	maxBefore int
	maxAfter  int
	// back is, per target, how far before the first literal occurrence
	// a match may start (-1: anywhere); see searchBack.
	back []int
	// anchors are, per target, the anchored variants of its regexp used
	// when matches start exactly at a gating literal (nil otherwise).
	anchors []*anchored
}

// anchored are variants of a regexp that match only at the start of the
// text: ctx skips one rune of context first (so that \b sees the rune
// before the literal), zero is for a literal at the start of the line.
type anchored struct {
	ctx, zero *regexp.Regexp
}

// newAnchored builds the anchored variants when every match starts with
// an occurrence of a gating literal that the automaton reports: a folding
// gate must be a prefix of the leading literal in any case, a
// case-sensitive gate an exact prefix of a case-sensitive leading literal.
func newAnchored(parsed *syntax.Regexp, pattern string, gates []literal) *anchored {
	lead, leadFold, isAnchored := leadingLiteral(parsed)
	if isAnchored || lead == "" || len(gates) == 0 {
		return nil
	}
	for _, g := range gates {
		ok := strings.HasPrefix(strings.ToLower(lead), strings.ToLower(g.text))
		if !g.fold {
			ok = !leadFold && strings.HasPrefix(lead, g.text)
		}
		if !ok {
			return nil
		}
	}
	ctx, err1 := regexp.Compile(`^(?s:.)(?:` + pattern + `)`)
	zero, err2 := regexp.Compile(`^(?:` + pattern + `)`)
	if err1 != nil || err2 != nil {
		return nil
	}
	return &anchored{ctx: ctx, zero: zero}
}

// Targets are numbered signatures first, then progress patterns, then the
// traceback head.
type signature struct {
	id      string
	re      *regexp.Regexp
	context int
	names   []string // subexpression names, for Groups
}

type progressPattern struct {
	id string
	re *regexp.Regexp
	// fixed converts values when the pattern has no unit group.
	fixed *unitConv
	group map[string]int
}

func (s *Scanner) tracebackTarget() int32 { return int32(len(s.sigs) + len(s.progress)) }

// Unfiltered returns the ids of the signatures and progress patterns that
// have neither a hint nor a literal derivable from their regexp. They are
// tried on every line, which is slow with many of them: rule tests can
// use this to insist on a hint.
func (s *Scanner) Unfiltered() []string {
	var ids []string
	for _, t := range s.always {
		ids = append(ids, s.targetID(t))
	}
	sort.Strings(ids)
	return ids
}

func (s *Scanner) targetID(t int32) string {
	switch {
	case int(t) < len(s.sigs):
		return s.sigs[t].id
	case int(t) < len(s.sigs)+len(s.progress):
		return s.progress[int(t)-len(s.sigs)].id
	}
	return "traceback"
}

// progressGroups are the named groups a progress pattern may use.
var progressGroups = map[string]bool{"step": true, "total": true, "loss": true, "value": true, "unit": true}

// Compile validates and compiles the signatures and progress patterns the
// rules declare (as decoded from JSON). A duplicate id, a bad regexp or a
// malformed field is an error naming the id, so that a rule author sees
// which declaration to fix.
func Compile(signatures, progress []map[string]any) (*Scanner, error) {
	s := &Scanner{}
	var lits []acLiteral
	litIndex := map[literal]int{}
	addLits := func(target int32, ls []literal) {
		for _, l := range ls {
			i, ok := litIndex[l]
			if !ok {
				i = len(lits)
				litIndex[l] = i
				lits = append(lits, acLiteral{orig: []byte(l.text), fold: l.fold})
			}
			lits[i].targets = append(lits[i].targets, target)
			if l.fold && strings.ContainsAny(l.text, "ks") {
				s.foldKS = append(s.foldKS, target)
			}
		}
		if len(ls) == 0 {
			s.always = append(s.always, target)
		}
	}

	seen := map[string]bool{}
	for i, m := range signatures {
		id, pattern, hint, err := commonFields(m, "signature", i)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, fmt.Errorf("signature %q: duplicate id", id)
		}
		seen[id] = true
		re, ls, back, anc, err := compilePattern(pattern, hint)
		if err != nil {
			return nil, fmt.Errorf("signature %q: %w", id, err)
		}
		s.back = append(s.back, back)
		s.anchors = append(s.anchors, anc)
		ctx := DefaultContext
		if v, ok := m["context"]; ok && v != nil {
			n, err := toInt(v)
			if err != nil || n < 0 || n > maxContext {
				return nil, fmt.Errorf("signature %q: context must be an integer in 0..%d, got %v", id, maxContext, v)
			}
			ctx = n
		}
		s.maxBefore = max(s.maxBefore, ctx)
		s.maxAfter = max(s.maxAfter, ctx)
		s.sigs = append(s.sigs, signature{id: id, re: re, context: ctx, names: re.SubexpNames()})
		addLits(int32(len(s.sigs)-1), ls)
	}

	seen = map[string]bool{}
	type pending struct {
		p  progressPattern
		ls []literal
	}
	var pps []pending
	var pbacks []int
	var panchors []*anchored
	for i, m := range progress {
		id, pattern, hint, err := commonFields(m, "progress pattern", i)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, fmt.Errorf("progress pattern %q: duplicate id", id)
		}
		seen[id] = true
		re, ls, back, anc, err := compilePattern(pattern, hint)
		if err != nil {
			return nil, fmt.Errorf("progress pattern %q: %w", id, err)
		}
		p := progressPattern{id: id, re: re, group: map[string]int{}}
		for gi, name := range re.SubexpNames() {
			if name == "" {
				continue
			}
			if !progressGroups[name] {
				return nil, fmt.Errorf("progress pattern %q: unknown group %q (want step, total, loss, value, unit)", id, name)
			}
			p.group[name] = gi
		}
		_, hasStep := p.group["step"]
		_, hasLoss := p.group["loss"]
		_, hasValue := p.group["value"]
		if !hasStep && !hasLoss && !hasValue {
			return nil, fmt.Errorf("progress pattern %q: needs a step, loss or value group", id)
		}
		if u, ok := m["unit"]; ok && u != nil {
			us, ok := u.(string)
			if !ok {
				return nil, fmt.Errorf("progress pattern %q: unit must be a string", id)
			}
			conv, ok := normaliseUnit(us)
			if !ok {
				return nil, fmt.Errorf("progress pattern %q: unknown unit %q (want e.g. samples/s, tokens/s, it/s, s/it, ms/it)", id, us)
			}
			p.fixed = &conv
		}
		if _, ok := p.group["unit"]; hasValue && !ok && p.fixed == nil {
			return nil, fmt.Errorf("progress pattern %q: a value group needs a unit group or a fixed unit", id)
		}
		pps = append(pps, pending{p, ls})
		pbacks = append(pbacks, back)
		panchors = append(panchors, anc)
	}
	for _, pp := range pps {
		s.progress = append(s.progress, pp.p)
		addLits(int32(len(s.sigs)+len(s.progress)-1), pp.ls)
	}
	s.back = append(s.back, pbacks...)
	s.back = append(s.back, -1) // traceback head
	s.anchors = append(s.anchors, panchors...)
	s.anchors = append(s.anchors, nil)
	tb := s.tracebackTarget()
	addLits(tb, []literal{{text: tracebackHead}})

	s.ac = newAutomaton(lits)
	s.foldKS = uniqueSorted(s.foldKS)
	return s, nil
}

// commonFields reads id, pattern and hint.
func commonFields(m map[string]any, what string, i int) (id, pattern, hint string, err error) {
	id, _ = m["id"].(string)
	if id == "" {
		return "", "", "", fmt.Errorf("%s #%d: missing id", what, i)
	}
	pattern, _ = m["pattern"].(string)
	if pattern == "" {
		return "", "", "", fmt.Errorf("%s %q: missing pattern", what, id)
	}
	if h, ok := m["hint"]; ok && h != nil {
		if hint, ok = h.(string); !ok {
			return "", "", "", fmt.Errorf("%s %q: hint must be a string", what, id)
		}
	}
	return id, pattern, hint, nil
}

// compilePattern compiles a pattern and picks the literals that gate it:
// the hint when given (case-insensitive when the pattern starts with
// (?i)), else literals derived from the regexp.
//
// When both a hint and derived literals exist, the more selective set wins
// (both are sound: the hint by the author's word, the derived set by
// construction), so a weak hint does not slow down a pattern whose regexp
// says more. It also returns how far before the first literal occurrence
// a match may start (see searchBack).
func compilePattern(pattern, hint string) (*regexp.Regexp, []literal, int, *anchored, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, nil, 0, nil, fmt.Errorf("pattern: %w", err)
	}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, nil, 0, nil, fmt.Errorf("pattern: %w", err)
	}
	parsed = parsed.Simplify()
	lits := requiredLiterals(parsed)
	if hint != "" {
		if l := safeLiteral(literal{text: hint, fold: strings.HasPrefix(pattern, "(?i)")}); l.text != "" {
			lits = better([]literal{l}, lits)
		}
	}
	return re, lits, searchBack(parsed, lits), newAnchored(parsed, pattern, lits), nil
}

func toInt(v any) (int, error) {
	switch n := v.(type) {
	case int:
		return n, nil
	case int64:
		return int(n), nil
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1e9 {
			return 0, fmt.Errorf("not an integer: %v", n)
		}
		return int(n), nil
	case json.Number:
		i, err := n.Int64()
		return int(i), err
	}
	return 0, fmt.Errorf("not a number: %T", v)
}

func uniqueSorted(in []int32) []int32 {
	sort.Slice(in, func(i, j int) bool { return in[i] < in[j] })
	out := in[:0]
	for i, v := range in {
		if i == 0 || v != in[i-1] {
			out = append(out, v)
		}
	}
	return out
}
