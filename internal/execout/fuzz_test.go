package execout

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The fuzz targets check more than "no panic": a result must be usable
// evidence. Evidence is handed to the rules as JSON, and encoding/json
// refuses NaN and ±Inf, so one odd number in a command output would make
// the whole diagnosis fail.

// seed adds the testdata files whose names start with prefix.
func seed(f *testing.F, prefix string) {
	names, _ := filepath.Glob(filepath.Join("testdata", prefix+"*.txt"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*", prefix+"*.txt"))
	for _, n := range append(names, more...) {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
}

// mustEncode fails when v cannot be encoded as JSON or the JSON is not
// valid UTF-8.
func mustEncode(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("result cannot be encoded: %v (%+v)", err, v)
	}
	if !utf8.Valid(b) {
		t.Fatalf("invalid UTF-8 in %s", b)
	}
}

func checkQuantity(t *testing.T, what string, v float64) {
	t.Helper()
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		t.Errorf("%s = %v, want a finite quantity ≥ 0", what, v)
	}
}

func FuzzNvidiaSMI(f *testing.F) {
	seed(f, "nvidia-smi")
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ParseNvidiaSMI(strings.NewReader(string(data)))
		if err != nil {
			if out != nil {
				t.Fatal("result with an error")
			}
			return
		}
		if len(out.GPUs) == 0 && out.Error == "" {
			t.Fatal("neither GPUs nor an error: should have been unrecognised")
		}
		for _, g := range out.GPUs {
			checkQuantity(t, "utilization", g.Utilization)
			checkQuantity(t, "memory used", g.MemoryUsed)
			checkQuantity(t, "memory total", g.MemoryTotal)
		}
		checkQuantity(t, "average utilization", out.AvgUtilization)
		if out.Processes < 0 {
			t.Errorf("processes = %d", out.Processes)
		}
		mustEncode(t, out)
	})
}

func FuzzRayStatus(f *testing.F) {
	seed(f, "ray-status")
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ParseRayStatus(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		checkQuantity(t, "GPUs used", out.GPUsUsed)
		checkQuantity(t, "GPUs total", out.GPUsTotal)
		checkQuantity(t, "CPUs used", out.CPUsUsed)
		checkQuantity(t, "CPUs total", out.CPUsTotal)
		if out.ActiveNodes < 0 || out.PendingNodes < 0 {
			t.Errorf("nodes: %d active, %d pending", out.ActiveNodes, out.PendingNodes)
		}
		mustEncode(t, out)
	})
}

func FuzzRayJobList(f *testing.F) {
	seed(f, "ray-job-list")
	f.Fuzz(func(t *testing.T, data []byte) {
		jobs, err := ParseRayJobList(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if n := strings.Count(string(data), "JobDetails(") + strings.Count(string(data), "JobInfo("); len(jobs) > n {
			t.Errorf("%d jobs from %d job reprs", len(jobs), n)
		}
		mustEncode(t, jobs)
	})
}

func FuzzCheckpoints(f *testing.F) {
	seed(f, "checkpoints")
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ParseCheckpointsAt(strings.NewReader(string(data)), now)
		if err != nil {
			return
		}
		if !sort.SliceIsSorted(out.Steps, func(i, j int) bool { return out.Steps[i] < out.Steps[j] }) {
			t.Errorf("steps not sorted: %v", out.Steps)
		}
		for i := 1; i < len(out.Steps); i++ {
			if out.Steps[i] == out.Steps[i-1] {
				t.Errorf("step %d listed twice", out.Steps[i])
			}
		}
		if out.LatestStep == nil && len(out.Steps) > 0 {
			t.Error("steps but no latest step")
		}
		if out.LatestTime != "" {
			if _, err := time.Parse(time.RFC3339Nano, out.LatestTime); err != nil {
				t.Errorf("latest time %q: %v", out.LatestTime, err)
			}
		}
		mustEncode(t, out)
	})
}

// FuzzLsTime: the time columns of an `ls -l` entry become an RFC 3339 time
// or nothing, the name is what follows them, and a time without a year is
// never placed more than a day after the listing was taken.
func FuzzLsTime(f *testing.F) {
	for _, s := range []string{
		"Mar 14 09:00 step_100",
		"Mar 14  2025 step_100",
		"Feb 29 09:00 leap",
		"Dec 31 23:59 late",
		"2026-03-14 09:00 step_1",
		"2026-03-14 09:00:01.123456789 +0800 step_2",
		"2026-02-30 09:00 bad",
		"Foo 99 99:99 x",
	} {
		f.Add(s, int64(1773489600)) // 2026-03-14T12:00:00Z
	}
	f.Fuzz(func(t *testing.T, s string, unix int64) {
		now := time.Unix(unix%(1<<34), 0).UTC() // years 1425 to 2514
		when, name := splitLsTime(s, now)
		if !strings.HasSuffix(s, name) {
			t.Errorf("name %q is not the end of %q", name, s)
		}
		if when == "" {
			return
		}
		tm, err := time.Parse(time.RFC3339Nano, when)
		if err != nil {
			t.Fatalf("time %q: %v", when, err)
		}
		if m := lsDefaultTime.FindStringSubmatch(s); m != nil && lsISOTime.FindStringSubmatch(s) == nil &&
			strings.Contains(m[3], ":") && tm.After(now.Add(24*time.Hour)) {
			t.Errorf("%q at %s resolved to %s, in the future", s, now, when)
		}
	})
}

// FuzzOtherText: an output kept as text is valid UTF-8, within its bound,
// and keeps its beginning.
func FuzzOtherText(f *testing.F) {
	seed(f, "")
	f.Fuzz(func(t *testing.T, data []byte) {
		et := otherText("x.txt", "exec/p/x.txt", data)
		if !utf8.ValidString(et.Text) {
			t.Fatal("invalid UTF-8")
		}
		if len(et.Text) > maxOtherText {
			t.Fatalf("%d bytes kept, bound %d", len(et.Text), maxOtherText)
		}
		if len(data) <= maxOtherText && utf8.Valid(data) && et.Text != string(data) {
			t.Fatal("short text changed")
		}
		// The same cut at a bound the fuzzer's inputs reach.
		s := strings.ToValidUTF8(string(data), "\uFFFD")
		cut := trimMiddle(s, 128)
		if !utf8.ValidString(cut) || len(cut) > max(128, len(s)) {
			t.Fatalf("cut to %d bytes: %q", len(cut), cut)
		}
		if len(s) > 128 && !strings.Contains(cut, "bytes omitted") {
			t.Fatalf("cut without a note: %q", cut)
		}
	})
}
