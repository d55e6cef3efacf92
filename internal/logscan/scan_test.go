package logscan

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/evidence"
)

func mustCompile(t testing.TB, sigs, prog []map[string]any) *Scanner {
	t.Helper()
	s, err := Compile(sigs, prog)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return s
}

func scanString(t testing.TB, s *Scanner, text string, opts Options) evidence.LogFile {
	t.Helper()
	lf, err := s.Scan(strings.NewReader(text), opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return lf
}

func scanTestdata(t testing.TB, s *Scanner, name string) evidence.LogFile {
	t.Helper()
	lf, err := s.ScanFile(filepath.Join("testdata", name), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Everything that leaves the scanner must encode as JSON (no NaN).
	if _, err := json.Marshal(lf); err != nil {
		t.Fatalf("json: %v", err)
	}
	return lf
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name       string
		sigs, prog []map[string]any
		want       string
	}{
		{"duplicate id", []map[string]any{sig("a", "x", ""), sig("a", "y", "")}, nil, `signature "a": duplicate id`},
		{"bad regexp", []map[string]any{sig("broken", "a(b", "")}, nil, `signature "broken": pattern`},
		{"missing id", []map[string]any{{"pattern": "x"}}, nil, "signature #0: missing id"},
		{"missing pattern", []map[string]any{{"id": "p"}}, nil, `signature "p": missing pattern`},
		{"bad context", []map[string]any{{"id": "c", "pattern": "x", "context": 1.5}}, nil, `signature "c": context`},
		{"hint type", []map[string]any{{"id": "h", "pattern": "x", "hint": 3.0}}, nil, `signature "h": hint must be a string`},
		{"progress duplicate", nil, []map[string]any{{"id": "p", "pattern": `step (?P<step>\d+)`}, {"id": "p", "pattern": `(?P<step>\d+)`}}, `progress pattern "p": duplicate id`},
		{"progress bad metric name", nil, []map[string]any{{"id": "p", "pattern": `norm (?P<gradNorm>\d+)`}}, `group "gradNorm": a metric is named in lower-case words`},
		{"progress no group", nil, []map[string]any{{"id": "p", "pattern": `step \d+`}}, `needs a step, value, saved_step, loss or metric group`},
		{"progress value without unit", nil, []map[string]any{{"id": "p", "pattern": `(?P<value>\d+) x`}}, `needs a unit group or a fixed unit`},
		{"progress unknown unit", nil, []map[string]any{{"id": "p", "pattern": `(?P<value>\d+) x`, "unit": "parsecs"}}, `unknown unit "parsecs"`},
		{"progress bad regexp", nil, []map[string]any{{"id": "p", "pattern": `(?P<step>\d+`}}, `progress pattern "p": pattern`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.sigs, tt.prog)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestTorchrunCUDAOOM(t *testing.T) {
	s := mustCompile(t, testSignatures(), testProgress())
	lf := scanTestdata(t, s, "torchrun-cuda-oom.log")
	oom, ok := lf.Matches["cuda-oom"]
	if !ok {
		t.Fatalf("no cuda-oom match; matches: %v", slices.Sorted(maps.Keys(lf.Matches)))
	}
	if oom.Count != 1 || oom.Groups["size"] != "2.00 GiB" {
		t.Errorf("cuda-oom = count %d groups %v", oom.Count, oom.Groups)
	}
	smp := oom.Samples[0]
	if len(smp.Before) != 3 || len(smp.After) != 3 || !strings.HasPrefix(smp.Text, "torch.cuda.OutOfMemoryError") {
		t.Errorf("sample = %+v", smp)
	}
	if got := lf.Matches["sigterm"].Count; got != 7 {
		t.Errorf("sigterm count = %d, want 7", got)
	}
	// Seven matches keep the first five and the last one.
	if got := lf.Matches["sigterm"].Samples; len(got) != 6 || got[5].Line != lf.Matches["sigterm"].LastLine {
		t.Errorf("sigterm samples = %d, last line %d", len(got), got[len(got)-1].Line)
	}
	if _, ok := lf.Matches["child-failed"]; !ok {
		t.Error("child-failed not matched (literal derived from the regexp)")
	}
	// The last traceback is torchrun's ChildFailedError box, which only
	// says a child failed: the rank's own traceback just before it is the
	// one the log reports (see traceback_test.go).
	if !strings.HasPrefix(lf.Exception, "torch.cuda.OutOfMemoryError: CUDA out of memory") {
		t.Errorf("exception = %q", lf.Exception)
	}
	tb := strings.Join(lf.Traceback, "\n")
	if !strings.Contains(tb, `File "/workspace/train.py", line 311, in train`) || strings.Contains(tb, "ChildFailedError") {
		t.Errorf("traceback is not the rank's:\n%s", tb)
	}
	if len(lf.Tail) != 50 || lf.Tail[49] != "============================================================" {
		t.Errorf("tail: %d lines, last %q", len(lf.Tail), lf.Tail[len(lf.Tail)-1])
	}
	p := lf.Progress
	if p == nil || p.LastStep == nil || *p.LastStep != 1187 || *p.TotalSteps != 4317 {
		t.Fatalf("progress = %+v", p)
	}
	if p.Throughput == nil || p.Throughput.Unit != UnitIters || p.Throughput.Last != round(1/3.12) {
		t.Errorf("throughput = %+v", p.Throughput)
	}
}

func TestRankPrefixedTracebacks(t *testing.T) {
	s := mustCompile(t, testSignatures(), testProgress())
	lf := scanTestdata(t, s, "rank-prefixed.log")
	// Two ranks print interleaved tracebacks; rank 1's ends last.
	if !strings.HasPrefix(lf.Exception, "torch.distributed.DistBackendError: NCCL error in:") {
		t.Errorf("exception = %q", lf.Exception)
	}
	for _, l := range lf.Traceback {
		if !strings.HasPrefix(l, "[rank1]:") {
			t.Errorf("traceback line from another stream: %q", l)
		}
	}
	if len(lf.Traceback) != 9 {
		t.Errorf("traceback has %d lines:\n%s", len(lf.Traceback), strings.Join(lf.Traceback, "\n"))
	}
	if lf.FirstTime != "2026-03-14T09:12:30.000000001Z" || lf.LastTime != "2026-03-14T09:22:44Z" {
		t.Errorf("times = %s .. %s", lf.FirstTime, lf.LastTime)
	}
	m := lf.Matches["cuda-oom"]
	if m.FirstTime != "2026-03-14T09:22:33.123456804Z" || m.Samples[0].Time != m.FirstTime {
		t.Errorf("cuda-oom time = %q / %q", m.FirstTime, m.Samples[0].Time)
	}
	if g := lf.Matches["nccl-error"].Groups["where"]; g != "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970," {
		t.Errorf("nccl-error where = %q", g)
	}
	if lf.Progress == nil || lf.Progress.LastStepTime != "2026-03-14T09:12:33.123456789Z" {
		t.Errorf("progress = %+v", lf.Progress)
	}
	if strings.HasPrefix(lf.Tail[0], "2026-") {
		t.Errorf("tail keeps the timestamp: %q", lf.Tail[0])
	}
}

func TestRayTracebacks(t *testing.T) {
	s := mustCompile(t, testSignatures(), testProgress())
	lf := scanTestdata(t, s, "ray-train.log")
	// The driver's RayTaskError carries the remote traceback: the final
	// exception line is the remote one.
	want := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 22.05 GiB of which 101.12 MiB is free."
	if lf.Exception != want {
		t.Errorf("exception = %q", lf.Exception)
	}
	if lf.Traceback[0] != tracebackHead || !strings.Contains(strings.Join(lf.Traceback, "\n"), "ray.exceptions.RayTaskError(OutOfMemoryError): ray::_Inner.train()") {
		t.Errorf("traceback:\n%s", strings.Join(lf.Traceback, "\n"))
	}
	if m := lf.Matches["ray-worker-failed"]; m.Count != 1 || m.Groups["rank"] != "2" || strings.Contains(m.Samples[0].Text, "\x1b") {
		t.Errorf("ray-worker-failed = %+v", m)
	}
	if got := lf.Matches["cuda-oom"].Count; got != 2 {
		t.Errorf("cuda-oom count = %d", got)
	}
	if p := lf.Progress; p == nil || *p.LastStep != 2 {
		t.Errorf("progress = %+v", p)
	}
}

func TestChainedTraceback(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	lf := scanTestdata(t, s, "chained.log")
	if lf.Exception != "RuntimeError: dataset incomplete" {
		t.Errorf("exception = %q", lf.Exception)
	}
	if len(lf.Traceback) != 13 || lf.Traceback[5] != chainDuring {
		t.Errorf("traceback (%d):\n%s", len(lf.Traceback), strings.Join(lf.Traceback, "\n"))
	}
	if g := lf.Matches["file-not-found"].Groups["path"]; g != "/data/shard-00017.jsonl" {
		t.Errorf("path = %q", g)
	}
}

func TestCRIFormat(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	lf := scanTestdata(t, s, "cri.log")
	m, ok := lf.Matches["nccl-watchdog"]
	if !ok {
		t.Fatalf("partial CRI records not joined: %v", slices.Sorted(maps.Keys(lf.Matches)))
	}
	if m.Groups["seq"] != "8812" || m.Groups["op"] != "ALLREDUCE" || m.FirstLine != 3 {
		t.Errorf("nccl-watchdog = %+v", m)
	}
	if !strings.HasPrefix(m.Samples[0].Text, "RuntimeError: NCCL communicator was aborted") {
		t.Errorf("joined text = %q", m.Samples[0].Text)
	}
	if lf.Tail[0] != "first line" || lf.LastTime != "2026-03-14T09:12:35Z" || lf.Lines != 4 {
		t.Errorf("tail %q, last %s, lines %d", lf.Tail, lf.LastTime, lf.Lines)
	}
}

func TestTimestampPrefix(t *testing.T) {
	tests := []struct {
		line, ts, rest string
	}{
		{"2026-03-14T09:12:33.123456789Z hello", "2026-03-14T09:12:33.123456789Z", "hello"},
		{"2026-03-14T09:12:33Z hello", "2026-03-14T09:12:33Z", "hello"},
		{"2026-03-14T09:12:33+08:00 hello", "2026-03-14T09:12:33+08:00", "hello"},
		{"2026-03-14T09:12:33.5Z stdout F hello", "2026-03-14T09:12:33.5Z", "hello"},
		{"2026-03-14T09:12:33.5Z", "2026-03-14T09:12:33.5Z", ""},
		{"2026-03-14 09:12:33,123 hello", "", "2026-03-14 09:12:33,123 hello"},
		{"2026-03-14T09:12:33 hello", "", "2026-03-14T09:12:33 hello"},
		{"2026-03-14T09:12:33.Z x", "", "2026-03-14T09:12:33.Z x"},
		{"short", "", "short"},
	}
	for _, tt := range tests {
		ts, rest, _ := splitTimestamp([]byte(tt.line))
		if string(ts) != tt.ts || string(rest) != tt.rest {
			t.Errorf("%q: got %q, %q", tt.line, ts, rest)
		}
	}
}

func TestInlineTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-03-14 09:12:33,123 INFO x": "2026-03-14T09:12:33.123Z",
		"[2026-03-14 09:12:33] x":        "2026-03-14T09:12:33Z",
		" [2026-03-14 09:12:33] iter":    "2026-03-14T09:12:33Z",
		"2026-03-14T09:12:33.5 x":        "2026-03-14T09:12:33.5Z",
		"2026-02-30 09:12:33 impossible": "",
		"step 5":                         "",
	} {
		tm, ok := inlineTime([]byte(in))
		got := ""
		if ok {
			got = formatTime(tm)
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestInvalidUTF8Replaced(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	text := strings.Repeat("ordinary text line\n", 200) + "boom \xff\xfe CUDA out of memory. Tried to allocate 3.00 GiB\n"
	lf := scanString(t, s, text, Options{})
	if lf.Binary {
		t.Fatal("text file with one bad line taken as binary")
	}
	got := lf.Matches["cuda-oom"].Samples[0].Text
	if got != "boom \uFFFD\uFFFD CUDA out of memory. Tried to allocate 3.00 GiB" {
		t.Errorf("text = %q", got)
	}
}

func TestSamplesAndContext(t *testing.T) {
	s := mustCompile(t, []map[string]any{
		{"id": "err", "pattern": `ERROR (?P<n>\d+)`, "context": 2.0},
	}, nil)
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		if i%10 == 0 {
			b.WriteString("ERROR " + itoa(i) + "\n")
		} else {
			b.WriteString("line " + itoa(i) + "\n")
		}
	}
	lf := scanString(t, s, b.String(), Options{MaxSamples: 2, TailLines: 3})
	m := lf.Matches["err"]
	if m.Count != 10 || m.FirstLine != 10 || m.LastLine != 100 || m.Groups["n"] != "10" {
		t.Fatalf("match = %+v", m)
	}
	want := []evidence.LogLine{
		{Line: 10, Text: "ERROR 10", Before: []string{"line 8", "line 9"}, After: []string{"line 11", "line 12"}},
		{Line: 20, Text: "ERROR 20", Before: []string{"line 18", "line 19"}, After: []string{"line 21", "line 22"}},
		{Line: 100, Text: "ERROR 100", Before: []string{"line 98", "line 99"}},
	}
	if !reflect.DeepEqual(m.Samples, want) {
		t.Errorf("samples = %+v", m.Samples)
	}
	if !reflect.DeepEqual(lf.Tail, []string{"line 98", "line 99", "ERROR 100"}) {
		t.Errorf("tail = %q", lf.Tail)
	}
}

func TestCaseFolding(t *testing.T) {
	s := mustCompile(t, []map[string]any{
		sig("hinted", `(?i)connection reset by peer`, "Connection reset"),
		sig("derived", `(?i)socket timeout`, ""),
		sig("exact", `Socket Timeout`, ""),
	}, nil)
	lf := scanString(t, s, "CONNECTION RESET BY PEER\nsocket TIMEOUT\nSocket Timeout\n"+
		"\u212Aill: soc\u212Aet timeout\n", Options{})
	for id, want := range map[string]int{"hinted": 1, "derived": 3, "exact": 1} {
		if got := lf.Matches[id].Count; got != want {
			t.Errorf("%s count = %d, want %d", id, got, want)
		}
	}
}

func TestCarriageReturnSegments(t *testing.T) {
	s := mustCompile(t, []map[string]any{sig("warn", `WARNING: (?P<w>\w+)`, "")}, testProgress())
	text := "  1%|          | 1/100 [00:01<01:39,  1.00it/s]\r WARNING: slow\r  2%|▏         | 2/100 [00:02<01:38,  1.10it/s]\r\n"
	lf := scanString(t, s, text, Options{})
	if lf.Tail[0] != "  2%|▏         | 2/100 [00:02<01:38,  1.10it/s]" {
		t.Errorf("tail = %q", lf.Tail[0])
	}
	if got := lf.Matches["warn"].Samples[0].Text; got != " WARNING: slow" {
		t.Errorf("sample = %q", got)
	}
	if p := lf.Progress; p == nil || p.StepSamples != 2 || *p.LastStep != 2 || p.Throughput.Samples != 2 {
		t.Errorf("progress = %+v", p)
	}
}

func TestUnfiltered(t *testing.T) {
	s := mustCompile(t, []map[string]any{sig("any", `\d+\s\d+`, ""), sig("lit", `abc\d`, "")}, nil)
	if got := s.Unfiltered(); !reflect.DeepEqual(got, []string{"any"}) {
		t.Errorf("Unfiltered = %v", got)
	}
	lf := scanString(t, s, "1 2\nabc3\n", Options{})
	if lf.Matches["any"].Count != 1 || lf.Matches["lit"].Count != 1 {
		t.Errorf("matches = %+v", lf.Matches)
	}
}

func TestEmptyInput(t *testing.T) {
	s := mustCompile(t, nil, nil)
	lf := scanString(t, s, "", Options{})
	if lf.Lines != 0 || lf.Matches == nil || lf.Tail == nil || lf.Progress != nil {
		t.Errorf("empty = %+v", lf)
	}
	lf = scanString(t, s, "no newline", Options{})
	if lf.Lines != 1 || lf.Tail[0] != "no newline" {
		t.Errorf("unterminated = %+v", lf)
	}
}

// TestSearchShortcuts checks that searching from literal occurrences finds
// what a search of the whole line finds, including word boundaries just
// before the literal and later occurrences.
func TestSearchShortcuts(t *testing.T) {
	s := mustCompile(t, []map[string]any{
		sig("word", `(?i)\bstep[ =](?P<n>\d+)`, ""),
		sig("exact", `Step (?P<n>\d+) done`, "Step"),
		sig("back", `global_step=(?P<n>\d+)`, "step="),
	}, nil)
	// "back" has a weak hint; the literal derived from its regexp wins
	// and is the prefix of every match. "exact" is gated by " done",
	// which matches do not start with.
	if s.anchors[0] == nil || s.anchors[2] == nil {
		t.Fatalf("shortcuts not set up: anchors %v", s.anchors)
	}
	text := "micro_step=1 global_step=2 STEP 3\nxStep 4 done Step 5 done\n\u00e9step 6\nnothing\n"
	lf := scanString(t, s, text, Options{})
	for _, id := range []string{"word", "exact", "back"} {
		var re *regexp.Regexp
		for _, sg := range s.sigs {
			if sg.id == id {
				re = sg.re
			}
		}
		want, first := 0, ""
		for _, l := range strings.Split(text, "\n") {
			if m := re.FindStringSubmatch(l); m != nil {
				if want == 0 {
					first = m[1]
				}
				want++
			}
		}
		if m := lf.Matches[id]; m.Count != want || m.Groups["n"] != first {
			t.Errorf("%s: count %d groups %v, regexp alone: %d, n=%s", id, m.Count, m.Groups, want, first)
		}
	}
	if g := lf.Matches["back"].Groups["n"]; g != "2" {
		t.Errorf("back = %+v", lf.Matches["back"])
	}
}
