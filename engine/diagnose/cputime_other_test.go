//go:build !unix

package diagnose

import "time"

// cpuTime is not measured here; the cpu metrics are then omitted.
func cpuTime() time.Duration { return 0 }
