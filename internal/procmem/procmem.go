// Package procmem reads the calling process's own resource use, its peak
// memory and CPU time, for tests that bound what a diagnosis holds and
// benchmarks that report CPU time. A parent's getrusage of a child is
// not used: on Linux it counts the parent's own peak too, since the child
// shares the parent's memory until it executes.
package procmem

import (
	"os"
	"strconv"
	"strings"
)

// Peak returns this process's peak resident set in bytes (VmHWM of
// /proc/self/status), and false where the system does not say.
func Peak() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	return parseHWM(string(b))
}

func parseHWM(status string) (int64, bool) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib << 10, err == nil
		}
	}
	return 0, false
}
