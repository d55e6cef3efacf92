package logscan

import (
	"bytes"
	"unicode/utf8"
)

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
