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
// Case-sensitive literals are verified before hit is called.
func (a *automaton) scan(text []byte, hit func(lit int32, end int)) {
	trans, class, n := a.trans, &a.class, int32(a.nclass)
	var s int32
	for i := 0; i < len(text); i++ {
		s = trans[s+int32(class[text[i]])]
		if s < 0 {
			s = -s
			for _, li := range a.outs[s/n] {
				l := &a.lits[li]
				if !l.fold {
					start := i + 1 - len(l.orig)
					if string(text[start:i+1]) != string(l.orig) {
						continue
					}
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
