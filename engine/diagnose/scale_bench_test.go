package diagnose

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/adapt"
	"github.com/traindoc/traindoc/internal/benchgen"
)

// BenchmarkFleetStages times the stages before the rules (reading a
// snapshot, building each job's evidence) on fleets of growing size, so
// that what grows faster than the fleet shows: per-job metrics that rise
// with the number of jobs are superlinear.
func BenchmarkFleetStages(b *testing.B) {
	for _, jobs := range []int{125, 250, 500} {
		dir := filepath.Join(b.TempDir(), "snap")
		f := benchgen.Fleet{Jobs: jobs, PodsPerJob: 8, EventsPerJob: 48, Nodes: jobs * 2, Seed: 7}
		if err := benchgen.WriteSnapshot(dir, f); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			var read, build time.Duration
			for b.Loop() {
				t := time.Now()
				snap, err := snapshot.Read(dir)
				if err != nil {
					b.Fatal(err)
				}
				read += time.Since(t)
				t = time.Now()
				if got := len(adapt.Build(snap)); got != jobs {
					b.Fatalf("%d jobs, want %d", got, jobs)
				}
				build += time.Since(t)
			}
			n := float64(b.N * jobs)
			b.ReportMetric(float64(read.Microseconds())/n, "read-µs/job")
			b.ReportMetric(float64(build.Microseconds())/n, "adapt-µs/job")
		})
	}
}
