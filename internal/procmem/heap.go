package procmem

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// SampleHeap records in peak the largest HeapInuse of this process, read
// every interval, until stop is called. It samples, so a peak shorter than
// the interval can be missed; the resident peak (Peak) cannot.
func SampleHeap(peak *atomic.Uint64, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
