package logscan

import (
	"bytes"
	"strings"
)

const (
	// maxTracebackLines bounds a captured traceback; longer ones keep
	// their head (where the failing program is) and tail (where the
	// exception is) with a marker in between.
	maxTracebackLines = 200
	// maxOpenTracebacks bounds how many streams (ranks, Ray actors) may
	// have a traceback in progress at once.
	maxOpenTracebacks = 64
	// maxTracebackNoise is how many unrelated lines an unfinished
	// traceback tolerates (other processes writing to the same log)
	// before it is abandoned.
	maxTracebackNoise = 20
	// maxExceptionContinuation bounds the body of an exception whose
	// message starts on the next line (torchrun's ChildFailedError box).
	maxExceptionContinuation = 60
	// maxSummaryGap is how many lines before a launcher's summary a
	// process's own traceback may have ended and still be the one the
	// summary reports: the launcher prints its box within moments of the
	// child's death, after at most the teardown noise of its peers.
	maxSummaryGap = 1000
)

const (
	chainDuring = "During handling of the above exception, another exception occurred:"
	chainCause  = "The above exception was the direct cause of the following exception:"
	// chainOriginal is how PyTorch re-raises an exception from a
	// DataLoader worker or a DataParallel replica: the message carries
	// the worker's own traceback, whose last line is the real error.
	chainOriginal = "Original Traceback (most recent call last):"
)

type tbState int

const (
	tbFrames       tbState = iota // reading "  File ..." lines
	tbAfterExc                    // exception line seen; a chained part may follow
	tbChain                       // chain sentence seen; a new Traceback header must follow
	tbContinuation                // exception message continues on the next lines
)

// tbBlock is a traceback being captured from one output stream.
type tbBlock struct {
	key       string
	base      int // indentation of the header
	state     tbState
	head      []string
	tail      []string // ring once head is full
	tailPos   int
	omitted   int
	pending   []string // blank lines that belong to the block only if it continues
	exception string
	startLine int
	endLine   int
	noise     int
	cont      int
	// summary marks a launcher's report about another process: an
	// exception whose message starts on the next line with a ruled box
	// (torchrun's ChildFailedError, "===...", older "***..."). It says
	// that a child failed, not why.
	summary bool
}

func (b *tbBlock) add(line string, lineNo int) {
	for _, p := range b.pending {
		b.push(p)
	}
	b.pending = b.pending[:0]
	b.push(line)
	b.endLine = lineNo
}

func (b *tbBlock) push(line string) {
	const half = maxTracebackLines / 2
	if len(b.head) < half {
		b.head = append(b.head, line)
		return
	}
	if len(b.tail) < half {
		b.tail = append(b.tail, line)
		return
	}
	b.tail[b.tailPos] = line
	b.tailPos = (b.tailPos + 1) % half
	b.omitted++
}

func (b *tbBlock) lines() []string {
	out := append([]string(nil), b.head...)
	if b.omitted > 0 {
		out = append(out, "... "+itoa(b.omitted)+" traceback lines omitted ...")
	}
	out = append(out, b.tail[b.tailPos:]...)
	return append(out, b.tail[:b.tailPos]...)
}

// tracebacks follows Python tracebacks in a log. Processes that share a
// log interleave their output, so a traceback is followed per stream: the
// "[rank3]:" prefix torchrun (PyTorch ≥ 2.2) puts on every line of a
// child's output, the "(RayTrainWorker pid=123, ip=…)" prefix Ray puts on
// worker output, or no prefix at all.
type tracebacks struct {
	open map[string]*tbBlock
	best *tbBlock
	// plain is the last kept traceback that is not a launcher's summary.
	plain *tbBlock
}

// feed gives the tracker one line. head is true when the line contains the
// traceback header literal (the automaton saw it); lines without it matter
// only while a traceback is open, which keeps this off the hot path.
func (t *tracebacks) feed(text []byte, lineNo int, head bool) {
	if !head && len(t.open) == 0 {
		return
	}
	key, content := streamPrefix(text)
	b := t.open[key]
	if head {
		trimmed := bytes.TrimLeft(content, " \t")
		if bytes.HasPrefix(trimmed, []byte(tracebackHead)) {
			if b != nil && b.state == tbChain {
				b.add(clean(text), lineNo)
				b.state = tbFrames
				b.noise = 0
				return
			}
			if b != nil {
				t.finish(b, true)
			}
			t.start(key, len(content)-len(trimmed), clean(text), lineNo)
			return
		}
	}
	if b == nil {
		return
	}
	if !b.step(content, text, lineNo) {
		t.finish(b, b.exception != "" || b.state != tbFrames)
	}
}

func (t *tracebacks) start(key string, base int, line string, lineNo int) {
	if t.open == nil {
		t.open = map[string]*tbBlock{}
	}
	if len(t.open) >= maxOpenTracebacks {
		var oldest *tbBlock
		for _, b := range t.open {
			if oldest == nil || b.startLine < oldest.startLine {
				oldest = b
			}
		}
		t.finish(oldest, true)
	}
	b := &tbBlock{key: key, base: base, startLine: lineNo}
	b.add(line, lineNo)
	t.open[key] = b
}

// finish closes a block; kept blocks compete to be the last traceback by
// the line where they ended.
func (t *tracebacks) finish(b *tbBlock, keep bool) {
	delete(t.open, b.key)
	if !keep {
		return
	}
	if t.best == nil || b.endLine >= t.best.endLine {
		t.best = b
	}
	if !b.summary && (t.plain == nil || b.endLine >= t.plain.endLine) {
		t.plain = b
	}
}

// last is the traceback a log reports: the last one, unless that is a
// launcher's summary printed right after a process's own traceback, which
// then wins because it names the exception that made the child fail.
func (t *tracebacks) last() *tbBlock {
	b := t.best
	if b != nil && b.summary && t.plain != nil && t.plain != b && b.startLine-t.plain.endLine <= maxSummaryGap {
		return t.plain
	}
	return b
}

// close ends every open block at end of file (a process killed while
// printing still leaves a useful partial traceback) and settles best on
// the traceback the log reports.
func (t *tracebacks) close() {
	for _, b := range t.open {
		t.finish(b, true)
	}
	t.best = t.last()
}

// step advances a block by one line of its stream; it returns false when
// the line does not belong to the block and the block is complete.
func (b *tbBlock) step(content, full []byte, lineNo int) bool {
	indent := leadingSpaces(content)
	blank := indent == len(content)
	rest := content[indent:]
	switch b.state {
	case tbFrames:
		switch {
		case blank:
			return b.noisy()
		case indent >= b.base+4:
			b.add(clean(full), lineNo)
		case indent >= b.base+2 && (bytes.HasPrefix(rest, []byte(`File "`)) || rest[0] == '[' || rest[0] == '+' || rest[0] == '|' || rest[0] == '^'):
			b.add(clean(full), lineNo)
		case indent == b.base && looksLikeException(rest):
			b.add(clean(full), lineNo)
			b.exception = clean(bytes.TrimSpace(rest))
			b.cont = 0
			if emptyMessage(rest) {
				b.state = tbContinuation
			} else {
				b.state = tbAfterExc
			}
		default:
			return b.noisy()
		}
		return true
	case tbAfterExc, tbChain:
		switch {
		case blank:
			if len(b.pending) >= 3 {
				return false
			}
			b.pending = append(b.pending, clean(full))
			return true
		case b.state == tbAfterExc && indent == b.base && (string(rest) == chainDuring || string(rest) == chainCause):
			b.add(clean(full), lineNo)
			b.state = tbChain
			return true
		case b.state == tbAfterExc && indent == b.base && string(rest) == chainOriginal:
			b.add(clean(full), lineNo)
			b.state = tbFrames
			return true
		case b.state == tbAfterExc && indent >= b.base+2 && bytes.HasPrefix(rest, []byte(`File "`)):
			// The message itself holds a traceback (Ray's RayTaskError
			// prints the remote one): keep reading frames; the next
			// exception line becomes the final one.
			b.add(clean(full), lineNo)
			b.state = tbFrames
			return true
		}
		return false
	case tbContinuation:
		if blank || b.cont >= maxExceptionContinuation {
			b.state = tbAfterExc
			return b.step(content, full, lineNo)
		}
		b.add(clean(full), lineNo)
		b.cont++
		if b.cont == 1 && (isRule(rest, '=') || isRule(rest, '*')) {
			b.summary = true
		}
		if b.cont > 1 && isRule(rest, '=') {
			b.state = tbAfterExc
		}
		return true
	}
	return false
}

func (b *tbBlock) noisy() bool {
	b.noise++
	return b.noise <= maxTracebackNoise
}

// streamPrefix splits a torchrun "[rank3]:" / "[default0]:" prefix or a
// Ray "(Actor pid=…, ip=…)" prefix off a line.
func streamPrefix(b []byte) (key string, content []byte) {
	if len(b) < 4 {
		return "", b
	}
	switch b[0] {
	case '[':
		i := 1
		for i < len(b) && i < 32 && (b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z') {
			i++
		}
		j := i
		for j < len(b) && j < 40 && isDigit(b[j]) {
			j++
		}
		if i > 1 && j > i && bytes.HasPrefix(b[j:], []byte("]:")) {
			content = b[j+2:]
			if len(content) > 0 && content[0] == ' ' {
				content = content[1:]
			}
			return string(b[:j+2]), content
		}
	case '(':
		end := bytes.IndexByte(b[:min(len(b), 256)], ')')
		if end > 0 && bytes.Contains(b[1:end], []byte("pid=")) {
			content = b[end+1:]
			if len(content) > 0 && content[0] == ' ' {
				content = content[1:]
			}
			return string(b[:end+1]), content
		}
	}
	return "", b
}

// looksLikeException recognises Python's final traceback line:
// "pkg.Type: message", "pkg.Type(Cause): message" (Ray) or a bare "Type".
func looksLikeException(s []byte) bool {
	i := 0
	for i < len(s) && (isIdentByte(s[i]) || s[i] == '.') {
		i++
	}
	if i == 0 || isDigit(s[0]) || s[0] == '.' {
		return false
	}
	if i < len(s) && s[i] == '(' {
		j := bytes.IndexByte(s[i:], ')')
		if j < 0 {
			return false
		}
		i += j + 1
	}
	if i == len(s) {
		return true
	}
	return s[i] == ':'
}

func emptyMessage(s []byte) bool {
	i := bytes.IndexByte(s, ':')
	return i >= 0 && len(bytes.TrimSpace(s[i+1:])) == 0
}

func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)
}

func isRule(s []byte, c byte) bool {
	s = bytes.TrimSpace(s)
	if len(s) < 10 {
		return false
	}
	for _, x := range s {
		if x != c {
			return false
		}
	}
	return true
}

func leadingSpaces(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// clean turns kept bytes into evidence text: valid UTF-8, bounded.
func clean(b []byte) string {
	return strings.ToValidUTF8(string(cut(b, maxTextBytes)), "\uFFFD")
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
