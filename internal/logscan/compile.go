// Package logscan streams container logs once and extracts what the rules
// asked for: matches of the log signatures they declare (with context,
// counts and times), the tail of the log, the last Python traceback and
// training progress read with the progress patterns they declare.
//
// What a line means lives in the rules (Rego), not here: this package only
// knows how to find the lines cheaply. Compile derives from every regexp a
// gate, a few literals one of which every match contains (see literal.go),
// and puts all gates into one automaton, so that a log is read exactly
// once and most lines are rejected by a single pass of the automaton
// without running any regexp; a regexp runs only on lines its gate lets
// through, from where the hit says a match can start.
//
// Nothing is lost silently: every byte read is matched or counted as
// skipped with a reason (a binary file, the middle of an over-long line,
// NUL bytes), and carriage-return redraws and terminal escapes do not hide
// what a line says.
package logscan

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
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
	// metrics are the names of the metric groups of all progress
	// patterns; a pattern's metric refers to its index here.
	metrics []string
	ac      *automaton
	// always are targets without a usable literal: tried on every line.
	always []int32
	// foldKS are targets that have a folding literal containing k or s:
	// Go's (?i) also matches the Kelvin sign and long s there, which the
	// ASCII-folding automaton cannot see; lines holding those runes try
	// these targets directly.
	foldKS    []int32
	maxBefore int
	maxAfter  int
	// anchors are, per target, the anchored variants of its regexp, used
	// on lines where every occurrence of its gate is of a literal that
	// matches start with (nil when no literal is such).
	anchors []*anchored
	// starts are, per target, a check on how a record must start for
	// a regexp anchored at the start (nil when there is none).
	starts []*startCheck
	// gates are, per target, the literals that gate it, for Gates.
	gates [][]lit
}

// anchored are variants of a regexp that match only at the start of the
// text: ctx skips one rune of context first (so that \b sees the rune
// before the literal), zero is for a literal at the start of the line.
type anchored struct {
	ctx, zero *regexp.Regexp
}

func newAnchored(pattern string) *anchored {
	ctx, err1 := regexp.Compile(`^(?s:.)(?:` + pattern + `)`)
	zero, err2 := regexp.Compile(`^(?:` + pattern + `)`)
	if err1 != nil || err2 != nil {
		return nil
	}
	return &anchored{ctx: ctx, zero: zero}
}

// startCheck is what the start of a record must look like for a regexp
// that begins with ^: after any bytes in skip, a byte in want.
type startCheck struct {
	skip, want byteSet
}

func (c *startCheck) ok(text []byte) bool {
	i := 0
	for i < len(text) && c.skip.has(text[i]) {
		if i++; i == maxSkip {
			return true
		}
	}
	return i < len(text) && c.want.has(text[i])
}

// newStartCheck derives the start check of ^\s*X: the first byte after
// the blanks must be one X may start with.
func newStartCheck(re *syntax.Regexp) *startCheck {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return nil
	}
	if op := re.Sub[0].Op; op != syntax.OpBeginText && op != syntax.OpBeginLine {
		return nil
	}
	rest := re.Sub[1:]
	var skip byteSet
	if s, ok := starClass(rest[0]); ok {
		skip, rest = s, rest[1:]
	}
	want, _, nullable := nodeBytes(&syntax.Regexp{Op: syntax.OpConcat, Sub: rest})
	if nullable || want.meets(skip) || len(rest) == 0 {
		return nil
	}
	if re.Sub[0].Op == syntax.OpBeginLine {
		return nil // (?m)^ also matches after a line break inside a record
	}
	return &startCheck{skip: skip, want: want}
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
	// The indexes of the named groups, 0 when absent (read per line,
	// where a map lookup would show).
	step, total, loss, value, unit, saved int
	// metrics are the groups that read a metric (loss included).
	metrics []metricGroup
}

// metricGroup ties a capture group to a metric of the scanner.
type metricGroup struct {
	group, metric int
}

func (s *Scanner) tracebackTarget() int32 { return int32(len(s.sigs) + len(s.progress)) }

// Unfiltered returns the ids of the signatures and progress patterns that
// have neither a hint nor a selective literal derivable from their regexp. They are
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

// progressGroups are the named groups with a fixed meaning in a progress
// pattern; any other group names a metric (loss is both).
var progressGroups = map[string]bool{"step": true, "total": true, "loss": true, "value": true, "unit": true, "saved_step": true}

// metricName is how a metric group must be named: lower-case words
// joined by underscores, as rules will refer to it.
var metricName = regexp.MustCompile(`^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$`)

// Compile validates and compiles the signatures and progress patterns the
// rules declare (as decoded from JSON). A duplicate id, a bad regexp or a
// malformed field is an error naming the id, so that a rule author sees
// which declaration to fix.
func Compile(signatures, progress []map[string]any) (*Scanner, error) {
	s := &Scanner{}
	var lits []acLiteral
	type litKey struct {
		text          string
		fold          bool
		before, after acEdge
	}
	litIndex := map[litKey]int{}
	addTarget := func(target int32, c compiled) {
		for _, l := range c.lits {
			before, after := resolveEdges(l)
			key := litKey{l.text, l.fold, before, after}
			i, ok := litIndex[key]
			if !ok {
				i = len(lits)
				litIndex[key] = i
				lits = append(lits, acLiteral{orig: []byte(l.text), fold: l.fold, before: before, after: after})
			}
			lits[i].add(target, l.back)
			if l.fold && strings.ContainsAny(l.text, "ks") {
				s.foldKS = append(s.foldKS, target)
			}
		}
		if len(c.lits) == 0 {
			s.always = append(s.always, target)
		}
		s.gates = append(s.gates, c.lits)
		s.anchors = append(s.anchors, c.anchors)
		s.starts = append(s.starts, c.start)
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
		c, err := compilePattern(pattern, hint)
		if err != nil {
			return nil, fmt.Errorf("signature %q: %w", id, err)
		}
		re := c.re
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
		addTarget(int32(len(s.sigs)-1), c)
	}

	seen = map[string]bool{}
	type pending struct {
		p progressPattern
		c compiled
	}
	var pps []pending
	for i, m := range progress {
		id, pattern, hint, err := commonFields(m, "progress pattern", i)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, fmt.Errorf("progress pattern %q: duplicate id", id)
		}
		seen[id] = true
		c, err := compilePattern(pattern, hint)
		if err != nil {
			return nil, fmt.Errorf("progress pattern %q: %w", id, err)
		}
		p, err := s.progressGroups(id, c.re)
		if err != nil {
			return nil, err
		}
		_, hasValue := p.group["value"]
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
		pps = append(pps, pending{p, c})
	}
	for _, pp := range pps {
		s.progress = append(s.progress, pp.p)
		addTarget(int32(len(s.sigs)+len(s.progress)-1), pp.c)
	}
	addTarget(s.tracebackTarget(), compiled{lits: []lit{{text: tracebackHead, back: -1}}})

	s.ac = newAutomaton(lits)
	s.foldKS = uniqueSorted(s.foldKS)
	return s, nil
}

// progressGroups reads what the named groups of a progress pattern
// capture, registering its metrics with the scanner.
func (s *Scanner) progressGroups(id string, re *regexp.Regexp) (progressPattern, error) {
	p := progressPattern{id: id, re: re, group: map[string]int{}}
	for gi, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		if !progressGroups[name] && !metricName.MatchString(name) {
			return p, fmt.Errorf("progress pattern %q: group %q: a metric is named in lower-case words joined by underscores", id, name)
		}
		p.group[name] = gi
		if name == "loss" || !progressGroups[name] {
			p.metrics = append(p.metrics, metricGroup{group: gi, metric: s.metricIndex(name)})
		}
	}
	p.step, p.total, p.loss, p.value, p.unit, p.saved = p.group["step"], p.group["total"], p.group["loss"], p.group["value"], p.group["unit"], p.group["saved_step"]
	if p.step == 0 && p.value == 0 && p.saved == 0 && len(p.metrics) == 0 {
		return p, fmt.Errorf("progress pattern %q: needs a step, value, saved_step, loss or metric group", id)
	}
	return p, nil
}

func (s *Scanner) metricIndex(name string) int {
	for i, m := range s.metrics {
		if m == name {
			return i
		}
	}
	s.metrics = append(s.metrics, name)
	return len(s.metrics) - 1
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

// uselessGate is the cost (expected share of lines let through, summed
// over literals) from which a gate is not worth having.
const uselessGate = 1.0

// compiled is a compiled pattern with what gates it.
type compiled struct {
	re      *regexp.Regexp
	lits    []lit
	anchors *anchored
	start   *startCheck
}

// compilePattern compiles a pattern and picks the literals that gate it:
// those derived from the regexp (see extractGate), or the hint when the
// rule gives one that is at least as selective (case-insensitive when the
// pattern starts with (?i)). A hint is the author's word that every match
// contains it; it is taken as is and cannot be checked. A hint weaker than
// what the regexp says is not used: it would only let more lines through.
func compilePattern(pattern, hint string) (compiled, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return compiled{}, fmt.Errorf("pattern: %w", err)
	}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return compiled{}, fmt.Errorf("pattern: %w", err)
	}
	parsed = parsed.Simplify()
	c := compiled{re: re, start: newStartCheck(parsed)}
	g := extractGate(parsed)
	if hint != "" {
		if l := safeLiteral(lit{text: hint, fold: strings.HasPrefix(pattern, "(?i)")}); l.text != "" {
			l.back = -1
			if h := gateOf([]lit{l}); g == nil || h.cost <= g.cost {
				g = h
			}
		}
	}
	// A gate that passes about every line only adds automaton hits.
	if g != nil && g.cost < uselessGate {
		c.lits = g.lits
		for _, l := range g.lits {
			if l.back == 0 {
				c.anchors = newAnchored(pattern)
				break
			}
		}
	}
	return c, nil
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

// GateInfo describes the gate of one signature or progress pattern: the
// literals one of which a line must contain before its regexp runs.
type GateInfo struct {
	ID       string
	Progress bool
	// Literals are quoted; (?i) marks a case-insensitive literal, ‹…› a
	// check on the neighbouring bytes, @0 a literal matches start with
	// and @-n one that starts at most n bytes into a match. Empty: no
	// gate, the regexp runs on every line.
	Literals []string
}

// Gates describes the gate of every signature and progress pattern, in
// declaration order.
func (s *Scanner) Gates() []GateInfo {
	var out []GateInfo
	for t := int32(0); t < s.tracebackTarget(); t++ {
		g := GateInfo{ID: s.targetID(t), Progress: int(t) >= len(s.sigs)}
		for _, l := range s.gates[t] {
			g.Literals = append(g.Literals, describeLit(l))
		}
		out = append(out, g)
	}
	return out
}

func describeLit(l lit) string {
	var b strings.Builder
	if l.fold {
		b.WriteString("(?i)")
	}
	if l.before.kind != edgeNone {
		b.WriteString(describeEdge(l.before))
	}
	b.WriteString(strconv.Quote(l.text))
	if l.after.kind != edgeNone {
		b.WriteString(describeEdge(l.after))
	}
	// Where a match starts relative to the literal.
	switch {
	case l.back == 0:
		b.WriteString("@0")
	case l.back > 0:
		fmt.Fprintf(&b, "@-%d", l.back)
	}
	return b.String()
}

func describeEdge(e edge) string {
	if e.kind == edgeBoundary {
		return `‹\b›`
	}
	var b strings.Builder
	b.WriteString("‹")
	if !e.skip.empty() {
		b.WriteString(describeSet(e.skip) + "*")
	}
	if !e.want.empty() {
		b.WriteString(describeSet(e.want))
	}
	if e.atEdge {
		if !e.want.empty() {
			b.WriteString("|")
		}
		b.WriteString("edge")
	}
	b.WriteString("›")
	return b.String()
}

func describeSet(s byteSet) string {
	if s.count() > 128 {
		var inv byteSet
		for i := range s {
			inv[i] = ^s[i]
		}
		return "[^" + strings.Trim(describeSet(inv), "[]") + "]"
	}
	var b strings.Builder
	b.WriteString("[")
	for c := 0; c < 256; c++ {
		if !s.has(byte(c)) {
			continue
		}
		e := c
		for e+1 < 256 && s.has(byte(e+1)) {
			e++
		}
		b.WriteString(byteRepr(byte(c)))
		if e > c {
			if e > c+1 {
				b.WriteString("-")
			}
			b.WriteString(byteRepr(byte(e)))
		}
		c = e
	}
	b.WriteString("]")
	return b.String()
}

func byteRepr(c byte) string {
	if c > ' ' && c < 0x7f && c != '-' && c != ']' && c != '[' && c != '^' && c != '\\' {
		return string(rune(c))
	}
	return fmt.Sprintf(`\x%02x`, c)
}
