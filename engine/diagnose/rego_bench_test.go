package diagnose

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/adapt"
	"github.com/traindoc/traindoc/internal/procmem"
)

// BenchmarkRegoPerJob measures one evaluation of the full rule set on one
// job, over every bundled fixture's jobs (logs already scanned), and
// reports the median and 90th percentile per job.
func BenchmarkRegoPerJob(b *testing.B) {
	ctx := context.Background()
	d, err := New(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	dirs, err := filepath.Glob("../../fixtures/*/expected.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var jobs []*evidence.Job
	for _, p := range dirs {
		dir := filepath.Dir(p)
		if filepath.Base(dir) == "big-million-lines" {
			continue
		}
		snap, err := snapshot.Read(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, j := range adapt.Build(snap) {
			d.logs.attach(ctx, snap, j, 0)
			jobs = append(jobs, j)
		}
	}
	times := make([]time.Duration, 0, b.N*len(jobs))
	cpu := make([]time.Duration, 0, b.N*len(jobs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			start := time.Now()
			cpu0, _ := procmem.CPUTime()
			if _, _, err := d.engine.Eval(ctx, j); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
			cpu1, _ := procmem.CPUTime()
			cpu = append(cpu, cpu1-cpu0)
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	slices.Sort(times)
	slices.Sort(cpu)
	b.ReportMetric(ms(times[len(times)/2]), "ms-median/job")
	b.ReportMetric(ms(times[len(times)*9/10]), "ms-p90/job")
	// On a shared machine wall time depends on the neighbours; the
	// process's CPU time (garbage collection included) is what a job
	// costs.
	if cpu[len(cpu)-1] > 0 {
		b.ReportMetric(ms(cpu[len(cpu)/2]), "cpu-ms-median/job")
		b.ReportMetric(ms(cpu[len(cpu)*9/10]), "cpu-ms-p90/job")
	}
	b.ReportMetric(float64(len(jobs)), "jobs")
}
