package logscan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

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
