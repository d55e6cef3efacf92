package logscan

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/procmem"
)

// BenchmarkScan measures throughput on a realistic timestamped training
// log against a full set of 150 signatures and the proposed progress
// patterns.
func BenchmarkScan(b *testing.B) {
	s := mustCompile(b, benchSignatures(150), testProgress())
	const size = 64 << 20
	r := newLogReader(size, 5000)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, _ := procmem.CPUTime()
	for i := 0; i < b.N; i++ {
		r.reset(size)
		lf, err := s.Scan(r, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(lf.Matches) == 0 {
			b.Fatal("no matches")
		}
	}
	// On a shared machine wall time depends on the neighbours; CPU time
	// (this process, GC included) says what the scanner costs.
	if cpu1, _ := procmem.CPUTime(); cpu1-cpu0 > 0 {
		d := cpu1 - cpu0
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkAutomaton isolates the literal prefilter.
func BenchmarkAutomaton(b *testing.B) {
	s := mustCompile(b, benchSignatures(150), testProgress())
	r := newLogReader(0, 0)
	text := r.block
	b.SetBytes(int64(len(text)))
	var hits int
	hit := func(int32, int) { hits++ }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.ac.scan(text, hit)
	}
}

// BenchmarkScanMemory shows that memory stays flat as the log grows: the
// peak heap in use (sampled while scanning) and the bytes allocated per
// scan do not depend on the size of the log. Run with -benchtime=1x; the
// 1 GiB case is skipped under -short.
func BenchmarkScanMemory(b *testing.B) {
	s := mustCompile(b, benchSignatures(150), testProgress())
	for _, c := range []struct {
		name string
		size int64
	}{{"10MB", 10 << 20}, {"100MB", 100 << 20}, {"1GB", 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			if testing.Short() && c.size > 100<<20 {
				b.Skip("1 GiB stream skipped in -short mode")
			}
			r := newLogReader(c.size, 5000)
			b.SetBytes(c.size)
			b.ReportAllocs()
			runtime.GC()
			var peak atomic.Uint64
			stop := procmem.SampleHeap(&peak, 10*time.Millisecond)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.reset(c.size)
				if _, err := s.Scan(r, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			stop()
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		})
	}
}

// TestLargeStream scans a 150 MB generated stream and checks that the
// heap stays bounded while it does.
func TestLargeStream(t *testing.T) {
	if testing.Short() {
		t.Skip("150 MB stream skipped in -short mode")
	}
	s := mustCompile(t, benchSignatures(150), testProgress())
	const size = 150 << 20
	r := newLogReader(size, 5000)
	runtime.GC()
	var peak atomic.Uint64
	stop := procmem.SampleHeap(&peak, 10*time.Millisecond)
	lf, err := s.Scan(r, Options{})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if lf.Bytes != size || lf.Lines == 0 {
		t.Fatalf("bytes %d lines %d", lf.Bytes, lf.Lines)
	}
	oom := lf.Matches["sig-000"]
	if oom.Count == 0 || len(oom.Samples) != defaultMaxSamples+1 {
		t.Errorf("sig-000: count %d samples %d", oom.Count, len(oom.Samples))
	}
	if lf.Progress == nil || lf.Progress.Throughput == nil || lf.Progress.StepSamples == 0 {
		t.Errorf("progress = %+v", lf.Progress)
	}
	if p := peak.Load(); p > 64<<20 {
		t.Errorf("peak heap in use %d MiB while scanning 150 MB", p>>20)
	}
	t.Logf("lines %d, peak heap in use %.1f MiB", lf.Lines, float64(peak.Load())/(1<<20))
}
