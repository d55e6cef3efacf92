package logscan

import (
	"bytes"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/evidence"
)

// checkAccounting asserts that every byte read was matched or counted as
// skipped, and that the reasons add up.
func checkAccounting(t *testing.T, lf evidence.LogFile, size int) {
	t.Helper()
	if lf.Bytes != int64(size) {
		t.Errorf("bytes = %d, want %d", lf.Bytes, size)
	}
	var sum int64
	for _, r := range lf.Skipped {
		sum += r.Bytes
	}
	if sum != lf.SkippedBytes || lf.SkippedBytes > lf.Bytes || lf.SkippedBytes < 0 {
		t.Errorf("skipped %d (reasons %+v) of %d bytes", lf.SkippedBytes, lf.Skipped, lf.Bytes)
	}
}

func skipped(lf evidence.LogFile, reason string) evidence.SkipReason {
	for _, r := range lf.Skipped {
		if r.Reason == reason {
			return r
		}
	}
	return evidence.SkipReason{}
}

func TestLongLines(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	const tenMB = 10 << 20
	filler := strings.Repeat("x", tenMB)
	tests := []struct {
		name    string
		text    string
		opts    Options
		want    []string // signatures found
		missing []string // signatures that must not be found
	}{
		{
			name: "after a 10 MB line",
			text: "before\n" + filler + "\n" + "Sending process 42 closing signal SIGTERM\n",
			want: []string{"sigterm"},
		},
		{
			name: "in the tail of a 10 MB line",
			text: "before\n" + filler + " Sending process 42 closing signal SIGTERM\nafter\n",
			want: []string{"sigterm"},
		},
		{
			name:    "head and tail, not the middle",
			text:    "CUDA out of memory. Tried to allocate 9.00 GiB " + filler[:tenMB/2] + " Worker 3 has failed " + filler[:tenMB/2] + " killed\n",
			want:    []string{"cuda-oom", "killed"},
			missing: []string{"ray-worker-failed"},
		},
		{
			name: "CRI records joined beyond the limit",
			text: strings.Repeat("2026-03-14T09:12:33Z stdout P "+filler[:16<<10]+"\n", 20) +
				"2026-03-14T09:12:33Z stdout F Worker 7 has failed\n",
			want: []string{"ray-worker-failed"},
		},
		{
			name:    "a small limit",
			text:    "Worker 1 has failed and then " + strings.Repeat("y", 100) + "\n",
			opts:    Options{MaxLineBytes: 20},
			missing: []string{"ray-worker-failed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf := scanString(t, s, tt.text, tt.opts)
			checkAccounting(t, lf, len(tt.text))
			for _, id := range tt.want {
				if _, ok := lf.Matches[id]; !ok {
					t.Errorf("%s not found; matches %v", id, slices.Sorted(maps.Keys(lf.Matches)))
				}
			}
			for _, id := range tt.missing {
				if _, ok := lf.Matches[id]; ok {
					t.Errorf("%s found in skipped bytes", id)
				}
			}
			long := skipped(lf, SkipLongLine)
			if lf.LongLines != 1 || long.Lines != 1 || long.Bytes == 0 || lf.SkippedBytes != long.Bytes {
				t.Errorf("long lines %d, skipped %d %+v", lf.LongLines, lf.SkippedBytes, lf.Skipped)
			}
			for _, m := range lf.Matches {
				for _, smp := range m.Samples {
					if len(smp.Text) > maxTextBytes {
						t.Errorf("sample of %d bytes", len(smp.Text))
					}
				}
			}
		})
	}
}

// TestLongLineBytes checks the exact split of an over-long line: the
// first and last half of the limit are matched, the rest skipped, and a
// multi-byte character is never cut.
func TestLongLineBytes(t *testing.T) {
	s := mustCompile(t, nil, nil)
	for _, n := range []int{1000, 1001, 64 << 10, 3<<20 + 7} {
		for _, fill := range []string{"a", "é", "€", "😀"} {
			line := strings.Repeat(fill, n/len(fill)+1)[:n]
			lf := scanString(t, s, line+"\n", Options{MaxLineBytes: 100})
			checkAccounting(t, lf, n+1)
			matched := int64(n) - lf.SkippedBytes
			if matched > 100 || matched < int64(100-2*(len(fill)-1)) {
				t.Errorf("%d bytes of %q: %d matched", n, fill, matched)
			}
			if !strings.HasPrefix(line, lf.Tail[0]) || !strings.HasPrefix(lf.Tail[0], strings.Repeat(fill, 48/len(fill))) {
				t.Errorf("%d bytes of %q: tail %q", n, fill, lf.Tail[0])
			}
		}
	}
}

func TestNULBytes(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	tests := []struct {
		name string
		text string
		nul  int64
	}{
		// copytruncate leaves zeros where the file was before.
		{"hole before text", strings.Repeat("\x00", 1<<20) + "Worker 3 has failed\n", 1 << 20},
		{"inside a line", "CUDA out of memory.\x00\x00 Tried to allocate 1.00 GiB\nWorker 3 has\x00 failed\n", 3},
		{"line of zeros", "start\n" + strings.Repeat("\x00", 20000) + "\nWorker 3 has failed\n", 20000},
		{"UTF-16", string(utf16("Worker 3 has failed\n")), 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf := scanString(t, s, tt.text, Options{})
			checkAccounting(t, lf, len(tt.text))
			if lf.Binary {
				t.Fatal("taken as binary")
			}
			if _, ok := lf.Matches["ray-worker-failed"]; !ok {
				t.Errorf("text after NUL bytes not matched: %v", slices.Sorted(maps.Keys(lf.Matches)))
			}
			if r := skipped(lf, SkipNUL); r.Bytes != tt.nul || lf.SkippedBytes != tt.nul {
				t.Errorf("skipped %+v", lf.Skipped)
			}
		})
	}
}

func utf16(s string) []byte {
	var b []byte
	for i := 0; i < len(s); i++ {
		b = append(b, s[i], 0)
	}
	return b
}

func TestBinary(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 64<<10)
	rng.Read(random)
	for name, data := range map[string][]byte{
		"invalid": append(bytes.Repeat([]byte{0xff, 0xfe, 0x80, '\n'}, 100), []byte("CUDA out of memory. Tried to allocate 1 GiB")...),
		"random":  append(random, "\nWorker 3 has failed\n"...),
		"control": bytes.Repeat([]byte("\x01\x02\x03\x04 abc\n"), 1000),
	} {
		t.Run(name, func(t *testing.T) {
			lf, err := s.Scan(bytes.NewReader(data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, lf, len(data))
			if !lf.Binary || len(lf.Matches) != 0 || len(lf.Tail) != 0 {
				t.Errorf("binary = %v matches %d tail %d", lf.Binary, len(lf.Matches), len(lf.Tail))
			}
			if r := skipped(lf, SkipBinary); r.Bytes != int64(len(data)) || lf.SkippedBytes != int64(len(data)) {
				t.Errorf("skipped %+v", lf.Skipped)
			}
			want := bytes.Count(data, []byte{'\n'})
			if data[len(data)-1] != '\n' {
				want++
			}
			if lf.Lines != want {
				t.Errorf("lines = %d, want %d", lf.Lines, want)
			}
		})
	}
}

// TestTerminalOutput covers what terminals and progress bars put in logs:
// CRLF endings, colours, and carriage-return redraws.
func TestTerminalOutput(t *testing.T) {
	s := mustCompile(t, []map[string]any{
		sig("nan", `(?i)\bloss: nan\b`, ""),
		sig("warn", `^WARNING: (?P<w>\w+)`, ""),
	}, testProgress())
	tests := []struct {
		name, text string
		want       map[string]int // match counts
		tail       string
		steps      int
	}{
		{
			name:  "nan inside a tqdm bar",
			text:  "  1%|          | 1/100 [00:01<01:39,  1.00it/s]\r  2%|▏         | 2/100 [00:02<01:38,  1.10it/s, loss: nan]\r  3%|▎         | 3/100 [00:03<01:37,  1.10it/s]\n",
			want:  map[string]int{"nan": 1},
			tail:  "  3%|▎         | 3/100 [00:03<01:37,  1.10it/s]",
			steps: 3,
		},
		{
			name: "CRLF",
			text: "WARNING: slow\r\nWARNING: slower\r\n",
			want: map[string]int{"warn": 2},
			tail: "WARNING: slower",
		},
		{
			name: "colours",
			text: "\x1b[33mWARNING\x1b[0m: \x1b[1mdisk\x1b[0m\n\x1b]8;;http://x\x1b\\loss: NaN\x1b]8;;\x1b\\\n",
			want: map[string]int{"warn": 1, "nan": 1},
			tail: "loss: NaN",
		},
		{
			name: "a line start after a carriage return",
			text: "progress 5\rWARNING: late\n",
			want: map[string]int{"warn": 1},
			tail: "WARNING: late",
		},
		{
			name: "one line counts once",
			text: "loss: nan\rloss: nan\rloss: nan\n",
			want: map[string]int{"nan": 1},
			tail: "loss: nan",
		},
		{
			name: "broken escape keeps the text",
			text: "\x1b[12\rWARNING: kept\n",
			want: map[string]int{"warn": 1},
			tail: "WARNING: kept",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf := scanString(t, s, tt.text, Options{})
			checkAccounting(t, lf, len(tt.text))
			if lf.Lines != strings.Count(tt.text, "\n") {
				t.Errorf("lines = %d", lf.Lines)
			}
			for id, n := range tt.want {
				if got := lf.Matches[id].Count; got != n {
					t.Errorf("%s: %d matches, want %d", id, got, n)
				}
			}
			if len(lf.Matches) != len(tt.want) {
				t.Errorf("matches %v", slices.Sorted(maps.Keys(lf.Matches)))
			}
			if got := lf.Tail[len(lf.Tail)-1]; got != tt.tail {
				t.Errorf("tail %q, want %q", got, tt.tail)
			}
			if tt.steps > 0 && (lf.Progress == nil || lf.Progress.StepSamples != tt.steps) {
				t.Errorf("progress %+v", lf.Progress)
			}
			for _, m := range lf.Matches {
				if strings.ContainsAny(m.Samples[0].Text, "\r\x1b") {
					t.Errorf("sample %q", m.Samples[0].Text)
				}
			}
		})
	}
}
