package logscan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"unicode/utf8"

	"github.com/traindoc/traindoc/engine/evidence"
)

// Options bound what one scan keeps. Zero values take the defaults.
type Options struct {
	// TailLines is how many last lines are kept (default 50).
	TailLines int
	// MaxSamples is how many first matches per signature are kept with
	// context (default 5); the last match is always kept as well.
	MaxSamples int
	// MaxLineBytes cuts longer lines (default 64 KiB); the rest of such a
	// line is read and counted but not matched.
	MaxLineBytes int
}

const (
	defaultTailLines    = 50
	defaultMaxSamples   = 5
	defaultMaxLineBytes = 64 << 10
	// maxTextBytes bounds every line of evidence text (tail, samples,
	// context, traceback). Matching still sees MaxLineBytes; the report
	// and the LLM prompt do not need more of one line than this.
	maxTextBytes = 4 << 10
	// sniffBytes is how much of the start of a file decides whether it is
	// binary.
	sniffBytes = 8 << 10
	// readBufferSize is the bufio buffer; lines longer than it are read
	// in pieces.
	readBufferSize = 64 << 10
)

func (o Options) withDefaults() Options {
	if o.TailLines <= 0 {
		o.TailLines = defaultTailLines
	}
	if o.MaxSamples <= 0 {
		o.MaxSamples = defaultMaxSamples
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = defaultMaxLineBytes
	}
	return o
}

// ScanFile scans one log file. The caller sets File and Previous.
func (s *Scanner) ScanFile(path string, opts Options) (evidence.LogFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return evidence.LogFile{}, fmt.Errorf("scan %s: %w", path, err)
	}
	defer f.Close()
	lf, err := s.Scan(f, opts)
	if err != nil {
		return lf, fmt.Errorf("scan %s: %w", path, err)
	}
	return lf, nil
}

// Scan reads r once, line by line, keeping only bounded state: a ring of
// recent lines (tail and context-before), the samples, open tracebacks and
// a decimated throughput series. Memory therefore does not grow with the
// size of the log. On a read error it returns what it found so far with
// the error.
func (s *Scanner) Scan(r io.Reader, opts Options) (evidence.LogFile, error) {
	st := newScanState(s, opts.withDefaults())
	err := st.run(r)
	return st.result(), err
}

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

type sigState struct {
	count      int
	firstLine  int
	lastLine   int
	firstTime  string
	lastTS     []byte
	groups     map[string]string
	samples    []*sampleBuf
	last       *sampleBuf
	lastIsLast bool // the newest match is in last, not in samples
}

type scanState struct {
	s    *Scanner
	opts Options

	lines   int
	bytes   int64
	binary  bool
	firstTS string
	lastTS  []byte

	sigs    []sigState
	matched []int32 // signatures with at least one match, in first-match order
	active  []*sampleBuf
	ring    *ring
	tb      tracebacks
	prog    progressState

	// per-line scratch
	mark       []uint32
	first      []int32 // per target: earliest literal start on this line, -1 unknown
	occ        []occurrence
	gen        uint32
	cands      []int32
	headHit    bool
	long       []byte
	partial    []byte
	ansi       []byte
	utf        []byte
	loc        []int
	progCand   []int32
	progTarget []int32
	hit        func(int32, int)
}

func newScanState(s *Scanner, opts Options) *scanState {
	st := &scanState{
		s:     s,
		opts:  opts,
		sigs:  make([]sigState, len(s.sigs)),
		ring:  newRing(max(opts.TailLines, s.maxBefore)),
		mark:  make([]uint32, int(s.tracebackTarget())+1),
		first: make([]int32, int(s.tracebackTarget())+1),
	}
	st.hit = st.onHit
	return st
}

// onHit collects the targets of an automaton hit, once per line each,
// with the earliest start of their literals on the line.
func (st *scanState) onHit(li int32, end int) {
	l := &st.s.ac.lits[li]
	start := int32(end - len(l.orig))
	for _, t := range l.targets {
		if st.s.anchors[t] != nil {
			if len(st.occ) < maxOccurrences {
				st.occ = append(st.occ, occurrence{t, start})
			} else {
				st.s.noteOverflow(st, t)
			}
		}
		if st.mark[t] != st.gen {
			st.mark[t] = st.gen
			st.cands = append(st.cands, t)
			st.first[t] = start
		} else if start < st.first[t] && st.first[t] >= 0 {
			st.first[t] = start
		}
	}
}

// window returns where in text the regexp of target t must start
// searching: just before the earliest possible match start (one rune of
// context is kept for \b), or 0 when that is not known.
func (st *scanState) window(t int32, text []byte) int {
	back := st.s.back[t]
	f := int(st.first[t])
	if back < 0 || f < 0 {
		return 0
	}
	w := f - back - 1
	if w <= 0 {
		return 0
	}
	for w > 0 && !utf8.RuneStart(text[w]) {
		w--
	}
	return w
}

func (st *scanState) run(r io.Reader) error {
	br := bufio.NewReaderSize(r, max(readBufferSize, st.opts.MaxLineBytes))
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("read: %w", err)
	}
	if looksBinary(head) {
		st.binary = true
		return st.countLines(br)
	}
	for {
		line, err := br.ReadSlice('\n')
		st.bytes += int64(len(line))
		if errors.Is(err, bufio.ErrBufferFull) {
			// An over-long line: keep its head, skip the rest.
			st.long = append(st.long[:0], line[:min(len(line), st.opts.MaxLineBytes)]...)
			for errors.Is(err, bufio.ErrBufferFull) {
				var more []byte
				more, err = br.ReadSlice('\n')
				st.bytes += int64(len(more))
			}
			st.line(st.long)
		} else if len(line) > 0 {
			if len(line) > st.opts.MaxLineBytes+1 {
				line = line[:st.opts.MaxLineBytes]
			}
			st.line(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				st.flushPartial()
				return nil
			}
			return fmt.Errorf("read: %w", err)
		}
	}
}

// countLines counts the lines of a binary file without looking at them.
func (st *scanState) countLines(br *bufio.Reader) error {
	buf := make([]byte, 32<<10)
	last := byte('\n')
	for {
		n, err := br.Read(buf)
		if n > 0 {
			st.bytes += int64(n)
			st.lines += bytes.Count(buf[:n], []byte{'\n'})
			last = buf[n-1]
		}
		if err != nil {
			if last != '\n' {
				st.lines++
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read: %w", err)
		}
	}
}

// looksBinary decides from the start of a file: NUL bytes, or more than
// a tenth of the bytes not decoding as UTF-8.
func looksBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if len(b)-i < utf8.UTFMax {
				break // a rune cut by the sniff window
			}
			bad++
		}
		i += size
	}
	return bad*10 > len(b)
}

// flushPartial handles a CRI partial record left at end of file.
func (st *scanState) flushPartial() {
	if len(st.partial) > 0 {
		st.process(st.partial, nil)
		st.partial = st.partial[:0]
	}
}

// line handles one physical line (with its newline, if any).
func (st *scanState) line(raw []byte) {
	st.lines++
	raw = bytes.TrimSuffix(raw, []byte{'\n'})
	raw = bytes.TrimSuffix(raw, []byte{'\r'})
	ts, text, partial := splitTimestamp(raw)
	if ts != nil {
		if st.firstTS == "" {
			st.firstTS = formatTimestamp(ts)
		}
		st.lastTS = append(st.lastTS[:0], ts...)
	}
	if partial || len(st.partial) > 0 {
		// The kubelet split a long line into CRI records: join them.
		room := st.opts.MaxLineBytes - len(st.partial)
		st.partial = append(st.partial, text[:max(0, min(room, len(text)))]...)
		if partial {
			return
		}
		text = st.partial
		defer func() { st.partial = st.partial[:0] }()
	}
	st.process(text, ts)
}

// process matches one logical line.
func (st *scanState) process(text, ts []byte) {
	if bytes.IndexByte(text, 0x1b) >= 0 {
		st.ansi = stripANSI(st.ansi[:0], text)
		text = st.ansi
	}
	if !utf8.Valid(text) {
		st.utf = appendValidUTF8(st.utf[:0], text)
		text = st.utf
	}
	disp := display(text)

	for _, b := range st.active {
		b.addAfter(disp)
	}
	if len(st.active) > 0 {
		kept := st.active[:0]
		for _, b := range st.active {
			if b.want > 0 {
				kept = append(kept, b)
			} else {
				b.active = false
			}
		}
		st.active = kept
	}

	st.cands = st.cands[:0]
	st.occ = st.occ[:0]
	st.headHit = false
	if len(text) > 0 {
		st.gen++
		if st.gen == 0 { // wrapped: reset marks
			clear(st.mark)
			st.gen = 1
		}
		st.s.ac.scan(text, st.hit)
		for _, t := range st.s.always {
			st.onTarget(t)
		}
		if len(st.s.foldKS) > 0 && hasFoldKS(text) {
			for _, t := range st.s.foldKS {
				st.onTarget(t)
			}
		}
	}
	st.progCand = st.progCand[:0]
	st.progTarget = st.progTarget[:0]
	nsig := int32(len(st.s.sigs))
	tbt := st.s.tracebackTarget()
	for _, t := range st.cands {
		switch {
		case t < nsig:
			st.matchSig(t, text, ts, disp)
		case t == tbt:
			st.headHit = true
		default:
			st.progCand = append(st.progCand, t-nsig)
			st.progTarget = append(st.progTarget, t)
		}
	}
	if len(st.progCand) > 0 {
		st.progress(text, ts)
	}
	st.ring.push(disp)
	st.tb.feed(text, st.lines, st.headHit)
}

// maxOccurrences bounds the literal occurrences remembered per line;
// beyond it, targets fall back to a windowed search of the line.
const maxOccurrences = 64

type occurrence struct {
	target int32
	start  int32
}

// noteOverflow makes t search the whole line: some of its occurrences
// were not remembered.
func (s *Scanner) noteOverflow(st *scanState, t int32) {
	if st.mark[t] != st.gen {
		st.mark[t] = st.gen
		st.cands = append(st.cands, t)
	}
	st.first[t] = -1
}

// search runs target t's regexp re on text the cheapest way that gives
// the same result as re on the whole line. When every literal that gates
// t is a prefix of what all its matches start with, a match can only
// start where one of those literals occurs, so re is tried anchored at
// each occurrence (with the preceding rune as context for \b) instead of
// at every position of the line. Otherwise the search starts at the
// window before the first occurrence (see searchBack). loc, when
// submatch is set, is relative to text.
func (st *scanState) search(t int32, re *regexp.Regexp, text []byte, submatch bool) ([]int, bool) {
	if a := st.s.anchors[t]; a != nil && st.first[t] >= 0 {
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
	w := st.window(t, text)
	if !submatch {
		return nil, re.Match(text[w:])
	}
	loc := re.FindSubmatchIndex(text[w:])
	if loc == nil {
		return nil, false
	}
	shift(loc, w)
	return loc, true
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

// onTarget adds a target without a literal position: its regexp
// searches the whole line.
func (st *scanState) onTarget(t int32) {
	if st.mark[t] != st.gen {
		st.mark[t] = st.gen
		st.cands = append(st.cands, t)
	}
	st.first[t] = -1
}

func hasFoldKS(text []byte) bool {
	return (bytes.IndexByte(text, 0xE2) >= 0 && bytes.Contains(text, []byte("\u212A"))) ||
		(bytes.IndexByte(text, 0xC5) >= 0 && bytes.Contains(text, []byte("\u017F")))
}

func (st *scanState) matchSig(t int32, text, ts, disp []byte) {
	sig := &st.s.sigs[t]
	ss := &st.sigs[t]
	if ss.count == 0 {
		loc, _ := st.search(t, sig.re, text, true)
		if loc == nil {
			return
		}
		st.matched = append(st.matched, t)
		ss.firstLine = st.lines
		if ts != nil {
			ss.firstTime = formatTimestamp(ts)
		}
		for i, name := range sig.names {
			if name != "" && loc[2*i] >= 0 {
				if ss.groups == nil {
					ss.groups = map[string]string{}
				}
				ss.groups[name] = clean(text[loc[2*i]:loc[2*i+1]])
			}
		}
	} else if _, ok := st.search(t, sig.re, text, false); !ok {
		return
	}
	ss.count++
	ss.lastLine = st.lines
	ss.lastTS = append(ss.lastTS[:0], ts...)

	var b *sampleBuf
	if len(ss.samples) < st.opts.MaxSamples {
		b = &sampleBuf{}
		ss.samples = append(ss.samples, b)
		ss.lastIsLast = false
	} else {
		if ss.last == nil {
			ss.last = &sampleBuf{}
		}
		b = ss.last
		ss.lastIsLast = true
	}
	shown := disp
	if bytes.IndexByte(text, '\r') >= 0 {
		// Show the carriage-return segment that matched, not the
		// last redraw of the progress bar.
		if loc := sig.re.FindIndex(text); loc != nil {
			shown = segmentAt(text, loc[0])
		}
	}
	b.set(st.lines, ts, cut(shown, maxTextBytes), st.ring, sig.context, sig.context)
	if b.want > 0 && !b.active {
		b.active = true
		st.active = append(st.active, b)
	}
}

// progress applies the candidate progress patterns to each carriage-
// return segment of the line: a tqdm bar redrawn in place leaves many
// updates on one physical line, each a sample.
func (st *scanState) progress(text, ts []byte) {
	var t int64
	if ts != nil {
		if tt, ok := parseTimestamp(ts); ok {
			t = tt.UnixNano()
		}
	} else if tt, ok := inlineTime(text); ok {
		t = tt.UnixNano()
	}
	if bytes.IndexByte(text, '\r') < 0 {
		var lp lineProgress
		for i, pi := range st.progCand {
			p := &st.s.progress[pi]
			loc, _ := st.search(st.progTarget[i], p.re, text, true)
			p.extract(text, loc, &lp)
		}
		if lp.hasAnything || lp.hasTotal {
			st.prog.record(&lp, st.lines, t)
		}
		return
	}
	for len(text) > 0 {
		seg := text
		if i := bytes.IndexByte(text, '\r'); i >= 0 {
			seg, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if len(seg) == 0 {
			continue
		}
		var lp lineProgress
		for _, pi := range st.progCand {
			p := &st.s.progress[pi]
			p.extract(seg, p.re.FindSubmatchIndex(seg), &lp)
		}
		if lp.hasAnything || lp.hasTotal {
			st.prog.record(&lp, st.lines, t)
		}
	}
}

func (st *scanState) result() evidence.LogFile {
	lf := evidence.LogFile{
		Lines:   st.lines,
		Bytes:   st.bytes,
		Binary:  st.binary,
		Matches: map[string]evidence.SignatureMatch{},
		Tail:    []string{},
	}
	if st.binary {
		return lf
	}
	lf.FirstTime = st.firstTS
	if len(st.lastTS) > 0 {
		lf.LastTime = formatTimestamp(st.lastTS)
	}
	for _, t := range st.matched {
		ss := &st.sigs[t]
		m := evidence.SignatureMatch{
			Count:     ss.count,
			FirstLine: ss.firstLine,
			LastLine:  ss.lastLine,
			FirstTime: ss.firstTime,
			Groups:    ss.groups,
		}
		if len(ss.lastTS) > 0 {
			m.LastTime = formatTimestamp(ss.lastTS)
		}
		for _, b := range ss.samples {
			m.Samples = append(m.Samples, b.logLine())
		}
		if ss.lastIsLast && ss.last != nil {
			m.Samples = append(m.Samples, ss.last.logLine())
		}
		lf.Matches[st.s.sigs[t].id] = m
	}
	n := min(st.ring.n, st.opts.TailLines)
	for i := st.ring.n - n; i < st.ring.n; i++ {
		lf.Tail = append(lf.Tail, clean(st.ring.at(i)))
	}
	st.tb.close()
	if b := st.tb.best; b != nil {
		lf.Traceback = b.lines()
		lf.Exception = b.exception
	}
	lf.Progress = st.prog.result()
	return lf
}

// display is what a terminal would show for a line: the last non-empty
// carriage-return segment, cut to maxTextBytes.
func display(text []byte) []byte {
	if bytes.IndexByte(text, '\r') >= 0 {
		end := len(text)
		for end > 0 {
			start := bytes.LastIndexByte(text[:end], '\r') + 1
			if len(bytes.TrimSpace(text[start:end])) > 0 {
				text = text[start:end]
				break
			}
			if start == 0 {
				break
			}
			end = start - 1
		}
	}
	return cut(text, maxTextBytes)
}

// segmentAt returns the carriage-return segment holding offset i.
func segmentAt(text []byte, i int) []byte {
	start := bytes.LastIndexByte(text[:i], '\r') + 1
	end := bytes.IndexByte(text[i:], '\r')
	if end < 0 {
		return text[start:]
	}
	return text[start : i+end]
}

// cut shortens b to at most n bytes without splitting a UTF-8 sequence.
func cut(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	return b[:i]
}

// stripANSI removes terminal escape sequences (colours that Ray and many
// loggers add), so that patterns and prefixes see the plain text.
func stripANSI(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != 0x1b {
			dst = append(dst, c)
			continue
		}
		if i+1 < len(b) && b[i+1] == '[' {
			// CSI: parameters and intermediates, then a final byte.
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		if i+1 < len(b) {
			i++ // two-byte escape
		}
	}
	return dst
}

// appendValidUTF8 appends b to dst with each invalid UTF-8 sequence
// replaced by U+FFFD, reusing dst's storage.
func appendValidUTF8(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[i:i+size]...)
		}
		i += size
	}
	return dst
}
