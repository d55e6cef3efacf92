package redact

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLine bounds the text redacted at once. A longer line is redacted in
// pieces of this size; a secret cut in two by a piece boundary can then
// survive, which a real log line of a megabyte makes unlikely.
const maxLine = 1 << 20

// Copy copies src to dst line by line, masking secrets as Lines does
// (including a private key spread over several lines), and returns the
// bytes written. Text of any size streams through in bounded memory, so it
// suits logs of gigabytes.
func Copy(dst io.Writer, src io.Reader) (int64, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	bw := bufio.NewWriterSize(dst, 64<<10)
	var written int64
	var line []byte
	inKey := false
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		full := len(line) > 0 && line[len(line)-1] == '\n'
		if full || len(line) >= maxLine || (err != nil && len(line) > 0) {
			n, werr := bw.WriteString(redactLine(string(line), &inKey))
			written += int64(n)
			if werr != nil {
				return written, werr
			}
			line = line[:0]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			if ferr := bw.Flush(); err == nil {
				err = ferr
			}
			return written, err
		}
	}
}

// Bytes redacts a whole text, keeping its line endings.
func Bytes(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b))
	// Writing to a bytes.Buffer cannot fail.
	_, _ = Copy(&out, bytes.NewReader(b))
	return out.Bytes()
}

// redactLine masks one line, with its line ending, continuing or starting a
// private key block as Lines does.
func redactLine(l string, inKey *bool) string {
	body, eol := l, ""
	if n := len(body); n > 0 && body[n-1] == '\n' {
		body, eol = body[:n-1], "\n"
		if n := len(body); n > 0 && body[n-1] == '\r' {
			body, eol = body[:n-1], "\r\n"
		}
	}
	if *inKey {
		if end := pemEnd.FindStringIndex(body); end != nil {
			*inKey = false
			return Mask + String(body[end[0]:]) + eol
		}
		return Mask + eol
	}
	r := String(body)
	if m := pemBegin.FindAllStringIndex(body, -1); m != nil && !pemEnd.MatchString(body[m[len(m)-1][1]:]) {
		*inKey = true
	}
	return r + eol
}
