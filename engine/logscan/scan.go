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
	// MaxLineBytes bounds what is matched of one line (default 64 KiB):
	// of a longer line, the first and the last MaxLineBytes/2 bytes are
	// matched and the bytes between them are counted as skipped.
	MaxLineBytes int
}

const (
	defaultTailLines    = 50
	defaultMaxSamples   = 5
	defaultMaxLineBytes = 64 << 10
	// minLineBytes keeps head and tail of a long line long enough to
	// hold a message.
	minLineBytes = 16
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
	o.MaxLineBytes = max(o.MaxLineBytes, minLineBytes)
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
	lastIsLast bool   // the newest match is in last, not in samples
	line       uint32 // lineGen of the last line counted
}

// Reasons for skipped bytes.
const (
	SkipBinary   = "binary"
	SkipLongLine = "long-line"
	SkipNUL      = "nul"
)

type scanState struct {
	s    *Scanner
	opts Options

	lines   int
	binary  bool
	firstTS string
	lastTS  []byte

	// Byte accounting: every byte read is matched or skipped.
	counter     *countReader
	nul         *nulFilter
	accounted   int64 // bytes of lines handed to the line assembler
	longLines   int
	longSkipped int64

	sigs    []sigState
	matched []int32 // signatures with at least one match, in first-match order
	active  []*sampleBuf
	ring    *ring
	tb      tracebacks
	prog    progressState
	stats   *rateCounts

	// the physical line being read
	buf     *lineBuf
	inLine  bool
	joining bool // a CRI partial record is waiting for its continuation
	partial bool
	ts      []byte
	lineGen uint32

	// per-record scratch
	mark       []uint32
	from       []int32 // per target: earliest possible match start, -1 unknown
	anch       []bool  // per target: every gate occurrence starts matches
	occ        []occurrence
	gen        uint32
	cands      []int32
	headHit    bool
	clean      [2][]byte
	spare      []byte
	progCand   []int32
	progTarget []int32
	// per-record metric values, one per metric of the scanner
	lineMetric    []float64
	lineHasMetric []bool
	hit           func(int32, int)
}

func newScanState(s *Scanner, opts Options) *scanState {
	n := int(s.tracebackTarget()) + 1
	st := &scanState{
		s:    s,
		opts: opts,
		sigs: make([]sigState, len(s.sigs)),
		ring: newRing(max(opts.TailLines, s.maxBefore)),
		buf:  newLineBuf(opts.MaxLineBytes),
		mark: make([]uint32, n),
		from: make([]int32, n),
		anch: make([]bool, n),

		lineMetric:    make([]float64, len(s.metrics)),
		lineHasMetric: make([]bool, len(s.metrics)),
	}
	st.hit = st.onHit
	return st
}

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

func (st *scanState) run(r io.Reader) error {
	st.counter = &countReader{r: r}
	st.nul = &nulFilter{r: st.counter}
	br := bufio.NewReaderSize(st.nul, max(readBufferSize, st.opts.MaxLineBytes))
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("read: %w", err)
	}
	if looksBinary(head) {
		st.binary = true
		return st.countLines(br)
	}
	for {
		chunk, err := br.ReadSlice('\n')
		more := errors.Is(err, bufio.ErrBufferFull)
		if len(chunk) > 0 {
			st.chunk(chunk, more)
		}
		if err != nil && !more {
			st.endOfInput()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read: %w", err)
		}
	}
}

// chunk takes the next piece of a physical line; more is set when the
// line goes on in the next piece.
func (st *scanState) chunk(b []byte, more bool) {
	st.accounted += int64(len(b))
	if !more {
		b = bytes.TrimSuffix(b, []byte{'\n'})
		b = bytes.TrimSuffix(b, []byte{'\r'})
	}
	if !st.inLine {
		st.inLine = true
		st.lines++
		ts, text, partial := splitTimestamp(b)
		// ts points into the read buffer: keep a copy.
		st.ts = append(st.ts[:0], ts...)
		if ts != nil {
			if st.firstTS == "" {
				st.firstTS = formatTimestamp(ts)
			}
			st.lastTS = append(st.lastTS[:0], ts...)
		}
		st.partial = partial
		if !more && !partial && !st.joining && len(text) <= st.opts.MaxLineBytes {
			// The common case: a whole line in one piece, matched where
			// it lies in the read buffer.
			st.inLine = false
			st.logical(text, nil, st.tsOrNil())
			return
		}
		if !st.joining {
			st.buf.reset()
		}
		b = text
	}
	st.buf.add(b)
	if more {
		return
	}
	st.inLine = false
	// The kubelet split a long line into CRI records: join them.
	if st.joining = st.partial; !st.joining {
		st.finishLine()
	}
}

// endOfInput finishes a line cut by the end of the file, or a CRI partial
// record left without its continuation.
func (st *scanState) endOfInput() {
	if st.inLine || st.joining {
		st.inLine, st.joining = false, false
		st.finishLine()
	}
}

func (st *scanState) finishLine() {
	head, tail, skipped := st.buf.parts()
	if tail != nil {
		st.longLines++
		st.longSkipped += skipped
	}
	st.logical(head, tail, st.tsOrNil())
	st.buf.reset()
}

func (st *scanState) tsOrNil() []byte {
	if len(st.ts) == 0 {
		return nil
	}
	return st.ts
}

// countLines counts the lines of a binary file without looking at them.
func (st *scanState) countLines(br *bufio.Reader) error {
	buf := make([]byte, 32<<10)
	last := byte('\n')
	for {
		n, err := br.Read(buf)
		if n > 0 {
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

// looksBinary decides from the start of a file (NUL bytes already
// removed): more than a tenth of the bytes are control characters that
// text does not hold, or do not decode as UTF-8.
func looksBinary(b []byte) bool {
	bad := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && !textControl(c) || c == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) {
				break // a rune cut by the sniff window
			}
			bad++
		}
		i += size
	}
	return bad*10 > len(b)
}

// textControl are the control characters found in text logs: tab, line
// breaks, form feed, backspace (progress redraws), escape (colours).
func textControl(c byte) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', '\b', 0x1b:
		return true
	}
	return false
}

// logical handles one logical line: its head and, when it was over-long,
// its tail, each matched on its own.
func (st *scanState) logical(head, tail, ts []byte) {
	text := st.cleanText(0, head)
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

	if st.lineGen++; st.lineGen == 0 { // wrapped: reset marks
		for i := range st.sigs {
			st.sigs[i].line = 0
		}
		st.lineGen = 1
	}
	st.records(text, ts)
	if tail != nil {
		st.records(st.cleanText(1, tail), ts)
	}
	st.ring.push(disp)
}

// cleanText strips terminal escape sequences and replaces invalid UTF-8,
// in scratch buffer i when anything changes.
func (st *scanState) cleanText(i int, text []byte) []byte {
	if bytes.IndexByte(text, 0x1b) >= 0 {
		st.clean[i] = stripANSI(st.clean[i][:0], text)
		text = st.clean[i]
	}
	if !utf8.Valid(text) {
		// text may be clean[i]: write into the spare buffer and swap.
		st.spare = appendValidUTF8(st.spare[:0], text)
		st.clean[i], st.spare = st.spare, st.clean[i]
		text = st.clean[i]
	}
	return text
}

// records matches each carriage-return segment of a line on its own: a
// progress bar redrawn in place leaves many updates on one physical line,
// and what one of them says must be seen (a CRLF ending leaves an empty
// last segment). A line with no text is still fed to the traceback
// tracker, for which blank lines matter.
func (st *scanState) records(text, ts []byte) {
	n := 0
	for len(text) > 0 {
		seg := text
		if i := bytes.IndexByte(text, '\r'); i >= 0 {
			seg, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if len(seg) > 0 {
			st.record(seg, ts)
			n++
		}
	}
	if n == 0 {
		st.record(nil, ts)
	}
}

// record matches one record: a line or a segment of one.
func (st *scanState) record(text, ts []byte) {
	st.cands = st.cands[:0]
	st.occ = st.occ[:0]
	st.headHit = false
	if len(text) > 0 {
		if st.stats != nil {
			st.stats.records++
		}
		if st.gen++; st.gen == 0 { // wrapped: reset marks
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
		if c := st.s.starts[t]; c != nil && !c.ok(text) {
			continue
		}
		if st.stats != nil {
			st.stats.cands[t]++
		}
		switch {
		case t < nsig:
			st.matchSig(t, text, ts)
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
	st.tb.feed(text, st.lines, st.headHit)
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

// matchSig confirms signature t on a record; a line counts once per
// signature however many of its records match.
func (st *scanState) matchSig(t int32, text, ts []byte) {
	sig := &st.s.sigs[t]
	ss := &st.sigs[t]
	if ss.line == st.lineGen {
		if st.stats != nil {
			if _, ok := st.search(t, sig.re, text, false); ok {
				st.stats.confirmed[t]++
			}
		}
		return
	}
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
	if st.stats != nil {
		st.stats.confirmed[t]++
	}
	ss.line = st.lineGen
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
	// The sample shows the record that matched: for a progress bar, the
	// segment, not the last redraw.
	b.set(st.lines, ts, cut(text, maxTextBytes), st.ring, sig.context, sig.context)
	if b.want > 0 && !b.active {
		b.active = true
		st.active = append(st.active, b)
	}
}

// progress applies the candidate progress patterns to a record.
func (st *scanState) progress(text, ts []byte) {
	var t int64
	if ts != nil {
		if tt, ok := parseTimestamp(ts); ok {
			t = tt.UnixNano()
		}
	} else if tt, ok := inlineTime(text); ok {
		t = tt.UnixNano()
	}
	lp := lineProgress{metric: st.lineMetric, hasMetric: st.lineHasMetric}
	clear(lp.hasMetric)
	for i, pi := range st.progCand {
		p := &st.s.progress[pi]
		if st.stats == nil && p.covered(&lp) {
			continue // what it could read, earlier patterns read
		}
		loc, _ := st.search(st.progTarget[i], p.re, text, true)
		if loc != nil && st.stats != nil {
			st.stats.confirmed[st.progTarget[i]]++
		}
		p.extract(text, loc, &lp)
	}
	if lp.hasAnything || lp.hasTotal {
		st.prog.record(&lp, st.lines, t, text)
	}
}

func (st *scanState) result() evidence.LogFile {
	lf := evidence.LogFile{
		Lines:   st.lines,
		Binary:  st.binary,
		Matches: map[string]evidence.SignatureMatch{},
		Tail:    []string{},
	}
	if st.counter != nil {
		lf.Bytes = st.counter.n
	}
	if st.binary {
		if lf.Bytes > 0 {
			lf.SkippedBytes = lf.Bytes
			lf.Skipped = []evidence.SkipReason{{Reason: SkipBinary, Bytes: lf.Bytes, Lines: st.lines}}
		}
		return lf
	}
	if st.longLines > 0 {
		lf.LongLines = st.longLines
		lf.Skipped = append(lf.Skipped, evidence.SkipReason{Reason: SkipLongLine, Bytes: st.longSkipped, Lines: st.longLines})
	}
	if st.nul != nil && st.nul.removed > 0 {
		lf.Skipped = append(lf.Skipped, evidence.SkipReason{Reason: SkipNUL, Bytes: st.nul.removed})
	}
	for _, r := range lf.Skipped {
		lf.SkippedBytes += r.Bytes
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
	lf.Progress = st.prog.result(st.s.metrics)
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

// stripANSI removes terminal escape sequences (colours that Ray, rich and
// many loggers add, cursor moves of progress bars, hyperlinks), so that
// patterns and prefixes see the plain text. A malformed sequence loses
// only its escape bytes: the text after it, and any line break or
// carriage return inside it, is kept.
func stripANSI(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != 0x1b {
			dst = append(dst, c)
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch next := b[i+1]; {
		case next == '[':
			// CSI: parameter bytes, intermediate bytes, a final byte.
			j := i + 2
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
				j++
			}
			if j < len(b) && b[j] >= 0x40 && b[j] <= 0x7e {
				i = j
			} else {
				i = j - 1 // malformed: keep the byte that broke it
			}
		case next == ']':
			// OSC: up to BEL or ESC \.
			i = skipOSC(b, i+2)
		case next >= 0x20 && next <= 0x7e:
			i++ // a two-byte escape
		}
	}
	return dst
}

// skipOSC returns the index of the last byte of an operating system
// command starting at j (after "ESC ]"), or j-1 when it has no
// terminator within maxOSC bytes: then only "ESC ]" goes.
func skipOSC(b []byte, j int) int {
	const maxOSC = 2048
	for k := j; k < len(b) && k < j+maxOSC; k++ {
		switch {
		case b[k] == 0x07:
			return k
		case b[k] == 0x1b && k+1 < len(b) && b[k+1] == '\\':
			return k + 1
		case b[k] == '\r' || b[k] == '\n':
			return j - 1
		}
	}
	return j - 1
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
