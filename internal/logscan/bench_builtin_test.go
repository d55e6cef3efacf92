package logscan_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/logscan"
	"github.com/traindoc/traindoc/internal/procmem"
)

// benchLog returns a generated healthy log of about size bytes (every
// style of training stack in turn), written once into the user's cache
// directory (a temporary directory when there is none) and reused.
func benchLog(b *testing.B, size int64) string {
	b.Helper()
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = b.TempDir()
	}
	dir = filepath.Join(dir, "traindoc", "logscan-bench")
	path := filepath.Join(dir, fmt.Sprintf("healthy-%dMiB-v%d.log", size>>20, logscan.HealthyLogVersion))
	if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tmp, err := os.CreateTemp(dir, "gen-*")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	if err := logscan.WriteHealthyMix(tmp, size, 1); err != nil {
		b.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkScanBuiltin scans a generated healthy log with the built-in
// signatures and progress patterns, as a diagnosis does. cpu-MB/s counts
// this process's CPU time, which a busy machine disturbs less than wall
// time; peak-heap-MiB is the largest heap in use seen while scanning
// (garbage included), live-heap-MiB the heap live halfway through.
//
// The signatures case leaves out the progress patterns: they match every
// training step by design, so their regexps run on most lines whatever
// the gates, and this case shows what the gates and the automaton cost.
func BenchmarkScanBuiltin(b *testing.B) {
	e := builtinRules(b)
	all, err := logscan.Compile(e.Signatures, e.ProgressPatterns)
	if err != nil {
		b.Fatal(err)
	}
	sigs, err := logscan.Compile(e.Signatures, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int64{64 << 20, 512 << 20} {
		for _, c := range []struct {
			name string
			s    *logscan.Scanner
		}{{"all", all}, {"signatures", sigs}} {
			b.Run(fmt.Sprintf("%dMiB/%s", size>>20, c.name), func(b *testing.B) {
				path := benchLog(b, size)
				fi, err := os.Stat(path)
				if err != nil {
					b.Fatal(err)
				}
				scanFile(b, c.s, path, fi.Size())
			})
		}
	}
}

// BenchmarkScanBuiltinMemory shows that the heap stays flat as the log
// grows; run with -benchtime=1x. The 1 GiB log is skipped with -short.
func BenchmarkScanBuiltinMemory(b *testing.B) {
	s := builtinScanner(b)
	for _, size := range []int64{16 << 20, 128 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			if testing.Short() && size > 128<<20 {
				b.Skip("1 GiB log skipped in -short mode")
			}
			path := benchLog(b, size)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			scanFile(b, s, path, fi.Size())
		})
	}
}

func scanFile(b *testing.B, s *logscan.Scanner, path string, size int64) {
	b.SetBytes(size)
	b.ReportAllocs()
	runtime.GC()
	var peak atomic.Uint64
	stop := procmem.SampleHeap(&peak, 10*time.Millisecond)
	cpu0, _ := procmem.CPUTime()
	b.ResetTimer()
	var live uint64
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		mid := &midScan{r: f, at: size / 2}
		lf, err := s.Scan(mid, logscan.Options{})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		live = max(live, mid.live)
		if lf.Bytes != size || len(lf.Tail) == 0 {
			b.Fatalf("bytes %d, %d tail lines", lf.Bytes, len(lf.Tail))
		}
	}
	b.StopTimer()
	stop()
	if cpu1, _ := procmem.CPUTime(); cpu1-cpu0 > 0 {
		d := cpu1 - cpu0
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(live)/(1<<20), "live-heap-MiB")
}

// midScan measures the live heap halfway through a scan: after a
// collection, what the scanner (and the loaded rules) hold. Unlike the
// peak, it does not depend on when the collector last ran.
type midScan struct {
	r    io.Reader
	n    int64
	at   int64
	live uint64
}

func (m *midScan) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if m.n < m.at && m.n+int64(n) >= m.at {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m.live = ms.HeapAlloc
	}
	m.n += int64(n)
	return n, err
}
