package diagnose

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/traindoc/traindoc/internal/benchgen"
	"github.com/traindoc/traindoc/internal/procmem"
)

// maxRSS is the most memory a diagnosis may hold, whatever the size of
// the logs it reads.
const maxRSS = 150 << 20

// TestPeakRSSLargeLog diagnoses a job whose one log is 2 GiB, generated
// in a temporary directory outside the repository, in a child process,
// and checks the child's peak resident set. The log repeats a generated
// block holding training lines, NCCL chatter, tracebacks, failures and a
// line far longer than the scanner's line limit.
func TestPeakRSSLargeLog(t *testing.T) {
	if dir := os.Getenv("TRAINDOC_RSS_CHILD"); dir != "" {
		if _, err := Run(context.Background(), dir, Options{}); err != nil {
			t.Fatal(err)
		}
		// The child reports its own peak (see procmem).
		if n, ok := procmem.Peak(); ok {
			fmt.Printf("\nchild-peak-bytes %d\n", n)
		}
		return
	}
	if testing.Short() {
		t.Skip("2 GiB log skipped in -short mode")
	}
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap")
	if err := benchgen.WriteSnapshot(snap, benchgen.Fleet{Jobs: 1, PodsPerJob: 1, EventsPerJob: 5, Nodes: 1, LogBytes: 1, FailEvery: 1, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	logs, err := filepath.Glob(filepath.Join(snap, "logs", "*", "*", "*.log"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("logs %v: %v", logs, err)
	}
	if err := writeRepeated(logs[0], 2<<30); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSLargeLog$")
	cmd.Env = append(os.Environ(), "TRAINDOC_RSS_CHILD="+snap)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	rss, ok := childPeak(out)
	if !ok {
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Skip("no resource usage on this system")
		}
		// Maxrss is in KiB on Linux; it may include this process's peak.
		rss = int64(ru.Maxrss) << 10
	}
	t.Logf("peak RSS %d MiB diagnosing a 2 GiB log", rss>>20)
	if rss > maxRSS {
		t.Errorf("peak RSS %d MiB, want at most %d MiB", rss>>20, maxRSS>>20)
	}
}

// childPeak reads the peak the child printed from its /proc/self/status.
func childPeak(out []byte) (int64, bool) {
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "child-peak-bytes "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// writeRepeated writes size bytes to path: a generated failing log's
// body repeated, with an over-long line in each block.
func writeRepeated(path string, size int64) error {
	var block bytes.Buffer
	if err := benchgen.WriteLog(&block, benchgen.LogOptions{Size: 4 << 20, Seed: 3, Ending: benchgen.CUDAOOM, Timestamps: true}); err != nil {
		return err
	}
	block.WriteString("2026-03-14T11:00:00.000000000Z ")
	block.Write(bytes.Repeat([]byte("x"), 1<<20))
	block.WriteByte('\n')
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for written := int64(0); written < size; {
		n, err := io.Copy(f, bytes.NewReader(block.Bytes()))
		if err != nil {
			f.Close()
			return err
		}
		written += n
	}
	return f.Close()
}
