package procmem

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseHWM(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   int64
		ok     bool
	}{
		{"Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n", 1234 << 10, true},
		{"Name:\tx\n", 0, false},
		{"VmHWM:\tlots kB\n", 0, false},
	} {
		got, ok := parseHWM(tc.status)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseHWM(%q) = %d, %t; want %d, %t", tc.status, got, ok, tc.want, tc.ok)
		}
	}
}

// The running test has touched memory, so a system with /proc reports a
// peak above zero.
func TestPeakOfThisProcess(t *testing.T) {
	n, ok := Peak()
	if !ok {
		t.Skip("no /proc/self/status here")
	}
	if n <= 0 {
		t.Errorf("Peak() = %d", n)
	}
}

// TestCPUTimeGrows: work done by this process shows in its CPU time.
func TestCPUTimeGrows(t *testing.T) {
	before, ok := CPUTime()
	if !ok {
		t.Skip("no CPU time on this system")
	}
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	after, _ := CPUTime()
	if after <= before || x == 0 {
		t.Errorf("CPU time %v then %v after 50 ms of work", before, after)
	}
}

// TestSampleHeapSeesAllocation: a large live allocation shows in the
// sampled peak, and stop may be called twice.
func TestSampleHeapSeesAllocation(t *testing.T) {
	var peak atomic.Uint64
	stop := SampleHeap(&peak, time.Millisecond)
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = byte(i)
	}
	time.Sleep(20 * time.Millisecond)
	runtime.KeepAlive(big)
	stop()
	stop()
	if peak.Load() < 64<<20 {
		t.Errorf("peak heap %d MiB with 64 MiB live", peak.Load()>>20)
	}
}
