package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"
)

// BenchmarkCLI runs one traindoc command line, given as a JSON array in
// TRAINDOC_BENCH_ARGS, exactly as main does (output discarded), so that a
// harness can measure a whole command in a fresh process: its time and
// peak memory from the outside, its allocations from here. Exit codes 0
// (diagnosed), 1 (a finding at the gate) and 3 (partial) are successes.
func BenchmarkCLI(b *testing.B) {
	raw := os.Getenv("TRAINDOC_BENCH_ARGS")
	if raw == "" {
		b.Skip("TRAINDOC_BENCH_ARGS is not set")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		b.Fatalf("TRAINDOC_BENCH_ARGS: %v", err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var stderr bytes.Buffer
		if code := runWith(args, io.Discard, &stderr); code != 0 && code != 1 && code != 3 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
