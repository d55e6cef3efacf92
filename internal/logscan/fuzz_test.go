package logscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/traindoc/traindoc/engine/evidence"
)

// fuzzOptions keep lines short so that the fuzzer reaches over-long
// lines, CRI joins beyond the limit and full sample buffers quickly.
var fuzzOptions = Options{TailLines: 5, MaxSamples: 2, MaxLineBytes: 256}

// FuzzScan feeds arbitrary bytes to Scan (over-long lines, invalid
// UTF-8, NUL, CRLF, escape sequences, carriage-return redraws, CRI
// records: see testdata/fuzz/FuzzScan). It must not panic; every byte
// must be matched or counted as skipped; what it returns must be bounded
// by the options, valid UTF-8, and encode as JSON.
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
	var sigs []map[string]any
	sigs = append(sigs, testSignatures()...)
	for i, p := range agreementPatterns {
		sigs = append(sigs, sig(fmt.Sprint("agree-", i), p, ""))
	}
	s := mustCompile(f, sigs, testProgress())
	f.Fuzz(func(t *testing.T, data []byte) {
		st := newScanState(s, fuzzOptions.withDefaults())
		if err := st.run(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		lf := st.result()
		if lf.Bytes != int64(len(data)) {
			t.Fatalf("bytes = %d, want %d", lf.Bytes, len(data))
		}
		// What the line reader handed on, less what it cut out of long
		// lines, was matched; with what was skipped, that is the input.
		matched := st.accounted - st.longSkipped
		if matched < 0 || matched+lf.SkippedBytes != int64(len(data)) {
			t.Fatalf("matched %d + skipped %d (%+v) != %d bytes", matched, lf.SkippedBytes, lf.Skipped, len(data))
		}
		checkBounds(t, s, lf, fuzzOptions.withDefaults())
		out, err := json.Marshal(lf)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(out) {
			t.Fatal("invalid UTF-8 in output")
		}
	})
}

// checkBounds asserts that a scan's result stays within what the options
// and the package's limits allow, whatever the input.
func checkBounds(t *testing.T, s *Scanner, lf evidence.LogFile, opts Options) {
	t.Helper()
	text := func(what, x string) {
		if len(x) > maxTextBytes || !utf8.ValidString(x) {
			t.Fatalf("%s: %d bytes, valid UTF-8 %v", what, len(x), utf8.ValidString(x))
		}
	}
	if len(lf.Tail) > opts.TailLines {
		t.Fatalf("tail of %d lines", len(lf.Tail))
	}
	for _, l := range lf.Tail {
		text("tail line", l)
	}
	if len(lf.Matches) > len(s.sigs) {
		t.Fatalf("%d matches", len(lf.Matches))
	}
	for id, m := range lf.Matches {
		if len(m.Samples) > opts.MaxSamples+1 || m.Count < len(m.Samples) || m.FirstLine > m.LastLine || m.LastLine > lf.Lines {
			t.Fatalf("%s: count %d, %d samples, lines %d..%d of %d", id, m.Count, len(m.Samples), m.FirstLine, m.LastLine, lf.Lines)
		}
		for _, smp := range m.Samples {
			text("sample", smp.Text)
			if len(smp.Before) > maxContext || len(smp.After) > maxContext {
				t.Fatalf("context %d/%d", len(smp.Before), len(smp.After))
			}
			for _, c := range append(smp.Before, smp.After...) {
				text("context", c)
			}
		}
		for _, g := range m.Groups {
			text("group", g)
		}
	}
	if len(lf.Traceback) > maxTracebackLines+1 {
		t.Fatalf("traceback of %d lines", len(lf.Traceback))
	}
	for _, l := range lf.Traceback {
		text("traceback line", l)
	}
	text("exception", lf.Exception)
	if lf.LongLines > lf.Lines {
		t.Fatalf("%d long lines of %d", lf.LongLines, lf.Lines)
	}
}
