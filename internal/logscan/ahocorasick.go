package logscan

// automaton is an Aho-Corasick matcher compiled to a dense DFA over byte
// equivalence classes. It finds, in one left-to-right pass over a line,
// every literal of every pattern, which is what lets the scanner reject
// most lines of a log without running a single regexp however many
// signatures the rules declare.
//
// Design choices, each for speed on long logs:
//   - The text is folded to ASCII lower case by the class table itself, so
//     folding literals cost nothing; literals that must match case
//     exactly are verified at the (rare) hit.
//   - Bytes that occur in no literal share one class, which keeps the
//     transition table small enough to stay in cache (states × classes).
//   - Transitions hold the premultiplied row offset of the next state and
//     are negated when that state reports a literal, so the inner loop is
//     one table load and one sign test per byte.
//
// A library was considered: the Go Aho-Corasick packages either build
// NFA-style automata that follow failure links per byte, or allocate per
// match; none folds case in the class table. The whole automaton is about
// 200 lines and has no dependency to track.
type automaton struct {
	class   [256]uint8
	nclass  int
	trans   []int32 // row offset (state*nclass) + class -> next row offset, negated when it reports
	outs    [][]int32
	lits    []acLiteral
	nstates int
}

// acLiteral is one literal in the automaton and what it stands for.
type acLiteral struct {
	orig    []byte // as written, for verifying case-sensitive literals
	fold    bool
	targets []int32
	// backs are, per target, how far into a match the literal may start
	// (-1: unbounded), see lit.back.
	backs []int32
	// before and after are checks on the neighbouring bytes, verified
	// at the (rare) hit like case.
	before, after acEdge
}

func (l *acLiteral) add(target int32, back int) {
	for i, t := range l.targets {
		if t == target {
			l.backs[i] = int32(maxBack(int(l.backs[i]), back))
			return
		}
	}
	l.targets = append(l.targets, target)
	l.backs = append(l.backs, int32(back))
}

// acEdge is a resolved edge check: after skipping up to maxSkip bytes in
// skip (away from the literal), a byte in want, or the end of the text
// when atEdge. An inactive check always passes.
type acEdge struct {
	active bool
	atEdge bool
	skip   byteSet
	want   byteSet
}

// resolveEdges turns a literal's checks into byte checks; a word
// boundary depends on whether the literal starts (ends) with a word
// character.
func resolveEdges(l lit) (before, after acEdge) {
	resolve := func(e edge, b byte) acEdge {
		switch e.kind {
		case edgeBoundary:
			if isWordByte(b) {
				return acEdge{active: true, atEdge: true, want: nonWordBytes}
			}
			return acEdge{active: true, want: wordBytes}
		case edgeClass:
			return acEdge{active: true, atEdge: e.atEdge, skip: e.skip, want: e.want}
		}
		return acEdge{}
	}
	if l.text == "" {
		return acEdge{}, acEdge{}
	}
	return resolve(l.before, l.text[0]), resolve(l.after, l.text[len(l.text)-1])
}

// checkBefore verifies e on the bytes before text[start].
func (e *acEdge) checkBefore(text []byte, start int) bool {
	i, n := start-1, 0
	for i >= 0 && e.skip.has(text[i]) {
		if n++; n == maxSkip {
			return true
		}
		i--
	}
	if i < 0 {
		return e.atEdge
	}
	return e.want.has(text[i])
}

// checkAfter verifies e on the bytes from text[end].
func (e *acEdge) checkAfter(text []byte, end int) bool {
	i, n := end, 0
	for i < len(text) && e.skip.has(text[i]) {
		if n++; n == maxSkip {
			return true
		}
		i++
	}
	if i == len(text) {
		return e.atEdge
	}
	return e.want.has(text[i])
}

// newAutomaton builds the automaton; lits[i].orig must be non-empty.
func newAutomaton(lits []acLiteral) *automaton {
	a := &automaton{lits: lits}
	// Byte classes: one per distinct (lower-cased) byte used by a literal,
	// plus class 0 for everything else.
	var used [256]bool
	for _, l := range lits {
		for _, b := range l.orig {
			used[lower(b)] = true
		}
	}
	n := 1
	for b := 0; b < 256; b++ {
		if used[b] {
			a.class[b] = uint8(n)
			n++
		}
	}
	for b := 'A'; b <= 'Z'; b++ {
		a.class[b] = a.class[b+'a'-'A']
	}
	a.nclass = n
	if n > 255 {
		// Cannot happen with 256 byte values folded to at most 230
		// classes, but keep the table well-formed if it ever could.
		panic("logscan: too many byte classes")
	}

	// Trie.
	type node struct {
		next map[uint8]int32
		fail int32
		out  []int32
	}
	nodes := []node{{next: map[uint8]int32{}}}
	for i, l := range lits {
		s := int32(0)
		for _, b := range l.orig {
			c := a.class[b]
			nx, ok := nodes[s].next[c]
			if !ok {
				nx = int32(len(nodes))
				nodes = append(nodes, node{next: map[uint8]int32{}})
				nodes[s].next[c] = nx
			}
			s = nx
		}
		nodes[s].out = append(nodes[s].out, int32(i))
	}

	// Breadth-first failure links, dense transitions and merged outputs.
	a.nstates = len(nodes)
	a.trans = make([]int32, len(nodes)*n)
	a.outs = make([][]int32, len(nodes))
	queue := make([]int32, 0, len(nodes))
	for c := 0; c < n; c++ {
		if nx, ok := nodes[0].next[uint8(c)]; ok {
			nodes[nx].fail = 0
			queue = append(queue, nx)
			a.trans[c] = nx
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		nodes[s].out = append(nodes[s].out, nodes[nodes[s].fail].out...)
		for c := 0; c < n; c++ {
			f := a.trans[int(nodes[s].fail)*n+c]
			if nx, ok := nodes[s].next[uint8(c)]; ok {
				nodes[nx].fail = f
				queue = append(queue, nx)
				a.trans[int(s)*n+c] = nx
			} else {
				a.trans[int(s)*n+c] = f
			}
		}
	}
	for s := range nodes {
		a.outs[s] = nodes[s].out
	}
	// Premultiply and mark reporting states.
	for i, t := range a.trans {
		off := t * int32(n)
		if len(a.outs[t]) > 0 {
			off = -off
		}
		a.trans[i] = off
	}
	return a
}

// scan calls hit for every literal occurrence in text (literal index,
// index one past its last byte), in order of the end index.
// Case-sensitive literals and checks on neighbouring bytes are verified
// before hit is called.
func (a *automaton) scan(text []byte, hit func(lit int32, end int)) {
	trans, class, n := a.trans, &a.class, int32(a.nclass)
	var s int32
	for i := 0; i < len(text); i++ {
		s = trans[s+int32(class[text[i]])]
		if s < 0 {
			s = -s
			for _, li := range a.outs[s/n] {
				l := &a.lits[li]
				start := i + 1 - len(l.orig)
				if !l.fold && string(text[start:i+1]) != string(l.orig) {
					continue
				}
				if l.before.active && !l.before.checkBefore(text, start) ||
					l.after.active && !l.after.checkAfter(text, i+1) {
					continue
				}
				hit(li, i+1)
			}
		}
	}
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
