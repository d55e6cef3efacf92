package logscan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzScan feeds arbitrary bytes to Scan: it must not panic, must count
// every byte, and everything it returns must be valid UTF-8 that encodes
// as JSON.
func FuzzScan(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	more, _ := filepath.Glob(filepath.Join("testdata", "progress", "*.log"))
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil && len(b) < 16<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("Traceback (most recent call last):\n  File \"x\", line 1\nE: \n====\n"))
	f.Add([]byte("[rank0]: Traceback (most recent call last):\n[rank0]: KeyError\n"))
	f.Add([]byte("2026-03-14T09:12:34Z stdout P part\n2026-03-14T09:12:34Z stdout F \x1b[31mrest\x1b[0m\r\n"))
	f.Add([]byte{0xff, 0xfe, '\r', '\n', 0x1b, '['})
	s := mustCompile(f, testSignatures(), testProgress())
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := s.Scan(bytes.NewReader(data), Options{TailLines: 5, MaxSamples: 2, MaxLineBytes: 256})
		if err != nil {
			t.Fatal(err)
		}
		if lf.Bytes != int64(len(data)) {
			t.Fatalf("bytes = %d, want %d", lf.Bytes, len(data))
		}
		out, err := json.Marshal(lf)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(out) {
			t.Fatal("invalid UTF-8 in output")
		}
		for _, l := range lf.Tail {
			if !utf8.ValidString(l) {
				t.Fatalf("tail line %q", l)
			}
		}
	})
}
