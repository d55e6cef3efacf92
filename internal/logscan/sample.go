package logscan

import "github.com/traindoc/traindoc/engine/evidence"

// sampleBuf holds one sample in reusable buffers, so that replacing the
// "last match" sample on every match of a noisy signature allocates
// nothing.
type sampleBuf struct {
	line   int
	ts     []byte
	text   []byte
	before [][]byte
	nb     int
	after  [][]byte
	na     int
	want   int
	active bool
}

func (b *sampleBuf) set(line int, ts, text []byte, r *ring, nBefore, nAfter int) {
	b.line = line
	b.ts = append(b.ts[:0], ts...)
	b.text = append(b.text[:0], text...)
	nBefore = min(nBefore, r.n)
	for len(b.before) < nBefore {
		b.before = append(b.before, nil)
	}
	for i := 0; i < nBefore; i++ {
		b.before[i] = append(b.before[i][:0], r.at(r.n-nBefore+i)...)
	}
	b.nb = nBefore
	b.na = 0
	b.want = nAfter
}

func (b *sampleBuf) addAfter(text []byte) {
	if b.na == len(b.after) {
		b.after = append(b.after, nil)
	}
	b.after[b.na] = append(b.after[b.na][:0], text...)
	b.na++
	b.want--
}

func (b *sampleBuf) logLine() evidence.LogLine {
	ll := evidence.LogLine{Line: b.line, Text: clean(b.text)}
	if len(b.ts) > 0 {
		ll.Time = formatTimestamp(b.ts)
	}
	for _, x := range b.before[:b.nb] {
		ll.Before = append(ll.Before, clean(x))
	}
	for _, x := range b.after[:b.na] {
		ll.After = append(ll.After, clean(x))
	}
	return ll
}

// ring keeps the last lines (display text, cut to maxTextBytes) in
// reused buffers.
type ring struct {
	buf   [][]byte
	start int
	n     int
}

func newRing(size int) *ring { return &ring{buf: make([][]byte, max(size, 1))} }

func (r *ring) push(b []byte) {
	i := (r.start + r.n) % len(r.buf)
	if r.n == len(r.buf) {
		r.start = (r.start + 1) % len(r.buf)
	} else {
		r.n++
	}
	r.buf[i] = append(r.buf[i][:0], b...)
}

func (r *ring) at(i int) []byte { return r.buf[(r.start+i)%len(r.buf)] }
