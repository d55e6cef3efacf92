package logscan

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// countReader counts the bytes read from the log.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// nulFilter drops NUL bytes and counts them. Logs get NULs from a file
// truncated under a writer that keeps its offset (copytruncate rotation
// leaves a hole of zeros before the next line), from a node that crashed
// while the file was being extended, or from a program writing UTF-16;
// none of them carries text, and none must hide the text around it.
type nulFilter struct {
	r       io.Reader
	removed int64
}

func (f *nulFilter) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		if i := bytes.IndexByte(p[:n], 0); i >= 0 {
			w := i
			for _, c := range p[i:n] {
				if c != 0 {
					p[w] = c
					w++
				}
			}
			f.removed += int64(n - w)
			n = w
		}
		// An all-NUL read returns nothing: read on, so that the caller
		// does not take a run of empty reads for a stuck reader.
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// lineBuf assembles one logical line from the pieces it is read in (the
// chunks of a line longer than the read buffer, the CRI records of a line
// the kubelet split). A line of at most limit bytes is kept whole; of a
// longer one, the first and the last limit/2 bytes are kept, so that
// evidence at either end is seen, and the rest is counted as skipped.
type lineBuf struct {
	limit int
	half  int
	head  []byte
	tail  []byte // the last bytes once over; its last half bytes count
	total int64
	over  bool
	next  byte // the byte after the kept head, once over
}

func newLineBuf(limit int) *lineBuf {
	return &lineBuf{limit: limit, half: limit / 2}
}

func (b *lineBuf) reset() {
	b.head, b.tail = b.head[:0], b.tail[:0]
	b.total, b.over = 0, false
}

func (b *lineBuf) add(p []byte) {
	if len(p) == 0 {
		return
	}
	b.total += int64(len(p))
	if !b.over {
		if len(b.head)+len(p) <= b.limit {
			b.head = append(b.head, p...)
			return
		}
		b.over = true
		if len(b.head) > b.half {
			b.next = b.head[b.half]
		} else {
			b.next = p[b.half-len(b.head)]
		}
		if len(b.head) > b.half {
			b.pushTail(b.head[b.half:])
			b.head = b.head[:b.half]
		} else {
			k := b.half - len(b.head)
			b.head = append(b.head, p[:k]...)
			p = p[k:]
		}
	}
	b.pushTail(p)
}

// pushTail appends to the tail, keeping at most 2*half bytes so that the
// buffer stays bounded while copying rarely.
func (b *lineBuf) pushTail(p []byte) {
	if len(p) >= b.half {
		b.tail = append(b.tail[:0], p[len(p)-b.half:]...)
		return
	}
	if len(b.tail)+len(p) > 2*b.half {
		keep := b.tail[len(b.tail)-(b.half-len(p)):]
		b.tail = append(b.tail[:0], keep...)
	}
	b.tail = append(b.tail, p...)
}

// parts returns the head and (for an over-long line) the tail to match,
// and how many bytes between them are not matched. Neither part splits a
// UTF-8 sequence: the bytes of a cut sequence count as skipped.
func (b *lineBuf) parts() (head, tail []byte, skipped int64) {
	if !b.over {
		return b.head, nil, 0
	}
	head = b.head
	if !utf8.RuneStart(b.next) {
		// The head ends inside a sequence: end it before the sequence.
		for i := 1; i < utf8.UTFMax && i <= len(head); i++ {
			if utf8.RuneStart(head[len(head)-i]) {
				head = head[:len(head)-i]
				break
			}
		}
	}
	tail = b.tail[max(0, len(b.tail)-b.half):]
	for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	return head, tail, b.total - int64(len(head)) - int64(len(tail))
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
