package explain

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParseAnswer feeds arbitrary model output to the answer parser. It
// must not panic, must give the same answer every time, and an answer it
// accepts must have the shape the report renders: a verdict of Yes, No or
// a short phrase, a one-line error and non-empty trimmed steps.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"healthy":"No","error":"OOM","analysis":"a","solution":["x","y"]}`,
		"Healthy: No\nError: e\nAnalysis: a\nSolution:\n1. x\n2. y",
		"## Healthy\nNo\n**Error:** e\n### Analysis\na\n**Solution**\n- x\n  more\n- y",
		"健康：否\n错误：e\n分析：a\n解决方案：\n1、x\n2、y",
		`{"健康":"否","错误":"e","分析":"a","解决方案":[{"step":1,"action":"x"},"2. y"]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := parseAnswer(text)
		b, err2 := parseAnswer(text)
		if (err == nil) != (err2 == nil) || a.Healthy != b.Healthy || a.Error != b.Error || a.Analysis != b.Analysis ||
			strings.Join(a.Solution, "\x00") != strings.Join(b.Solution, "\x00") {
			t.Fatalf("two parses differ:\n%#v %v\n%#v %v", a, err, b, err2)
		}
		if err != nil {
			return
		}
		if a.Healthy != "" && a.Healthy != "Yes" && a.Healthy != "No" && utf8.RuneCountInString(a.Healthy) > 41 {
			t.Errorf("verdict %q", a.Healthy)
		}
		if strings.ContainsAny(a.Error, "\n\r") || a.Error != strings.TrimSpace(a.Error) {
			t.Errorf("error %q is not one trimmed line", a.Error)
		}
		if a.Analysis != strings.TrimSpace(a.Analysis) {
			t.Errorf("analysis %q not trimmed", a.Analysis)
		}
		for _, s := range a.Solution {
			if s == "" || s != strings.TrimSpace(s) {
				t.Errorf("step %q", s)
			}
		}
	})
}

// TestParseAnswerHuge: an endpoint may return far more text than asked for.
// Parsing stays linear in it: the allocation is a small multiple of the
// input, not its square.
func TestParseAnswerHuge(t *testing.T) {
	line := strings.Repeat("word ", 12) + "\n"
	tests := []struct {
		name string
		in   string
	}{
		{"one step continued on many lines", "Error: e\nAnalysis: a\nSolution:\n1. start\n" + strings.Repeat(line, 8000)},
		{"many steps", "Error: e\nAnalysis: a\nSolution:\n" + strings.Repeat("- "+line, 8000)},
		{"long analysis", "Error: e\nSolution: s\nAnalysis:\n" + strings.Repeat(line, 8000)},
		{"json with a long list", `{"error":"e","analysis":"a","solution":["` + strings.Repeat(`x", "`, 50000) + `"]}`},
		{"unbalanced braces", strings.Repeat("{", 100000) + strings.Repeat("}", 1)},
		{"deep json", `{"error":"e","analysis":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`},
		{"no newlines", strings.Repeat("Error: ", 60000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _ = parseAnswer(tt.in)
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 64*uint64(len(tt.in)) {
				t.Errorf("allocated %d MiB for %d KiB of text", n>>20, len(tt.in)>>10)
			}
		})
	}
}

// TestParseAnswerDuplicateFields: a field given under two names has one
// answer however Go orders the map (it used to depend on that order), and
// two names for one field do not count as two fields.
func TestParseAnswerDuplicateFields(t *testing.T) {
	tests := []struct {
		name, in  string
		wantError string
		wantErr   bool
	}{
		{"own name wins", `{"cause":"b","error":"a","root_cause":"c","analysis":"x"}`, "a", false},
		{"first alias wins", `{"root_cause":"c","cause":"b","analysis":"x"}`, "b", false},
		{"one field under three names", `{"error":"a","cause":"b","root_cause":"c"}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := 0; i < 50; i++ {
				a, err := parseAnswer(tt.in)
				if tt.wantErr {
					if err == nil {
						t.Fatalf("parsed %+v, want an error", a)
					}
					continue
				}
				if err != nil || a.Error != tt.wantError {
					t.Fatalf("run %d: error = %q (%v), want %q", i, a.Error, err, tt.wantError)
				}
			}
		})
	}
}

// FuzzRetryAfter: a Retry-After header, delay-seconds or an HTTP date,
// never reads as a negative wait (which would silently drop the server's
// hint), and a date in the future reads as the time until it.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0.5", "-1", "1e300", "Inf", "NaN", "Wed, 21 Oct 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", ""} {
		f.Add(s)
	}
	now := time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d := parseRetryAfter(v, now)
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v", v, d)
		}
		if when, err := http.ParseTime(strings.TrimSpace(v)); err == nil && when.After(now) {
			if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil && d != when.Sub(now) {
				t.Errorf("parseRetryAfter(%q) = %v, want %v", v, d, when.Sub(now))
			}
		}
	})
}
