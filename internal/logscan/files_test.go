package logscan

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestScanFilesOrder checks that a concurrent scan of many files gives
// exactly what scanning them one by one gives, in the order asked.
func TestScanFilesOrder(t *testing.T) {
	s := mustCompile(t, testSignatures(), testProgress())
	dir := t.TempDir()
	var jobs []FileJob
	add := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, FileJob{Path: p})
	}
	logs, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	for i, name := range logs {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(name), b)
		// Files of very different sizes finish out of order.
		var big bytes.Buffer
		if err := WriteHealthyLog(&big, HealthyProfiles[i%len(HealthyProfiles)], 200*(i+1), int64(i)); err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(name)+".healthy", append(big.Bytes(), b...))
	}
	add("binary", bytes.Repeat([]byte{1, 2, 3, 0xff}, 5000))
	jobs = append(jobs, FileJob{Path: filepath.Join(dir, "missing.log")})
	jobs[0].Options = Options{TailLines: 3, MaxSamples: 1}

	var want []FileResult
	for _, j := range jobs {
		lf, err := s.ScanFile(j.Path, j.Options)
		want = append(want, FileResult{Log: lf, Err: err})
	}
	if want[len(want)-1].Err == nil {
		t.Fatal("missing file scanned")
	}
	for _, workers := range []int{0, 1, 3, 64} {
		got := s.ScanFiles(context.Background(), jobs, workers)
		if len(got) != len(want) {
			t.Fatalf("workers %d: %d results for %d jobs", workers, len(got), len(jobs))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i].Log, want[i].Log) || errString(got[i].Err) != errString(want[i].Err) {
				t.Errorf("workers %d, %s: result differs from a serial scan", workers, jobs[i].Path)
			}
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestScanFilesCancelled(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	jobs := []FileJob{{Path: filepath.Join("testdata", "cri.log")}, {Path: filepath.Join("testdata", "chained.log")}}
	for i, r := range s.ScanFiles(ctx, jobs, 2) {
		if !errors.Is(r.Err, context.Canceled) {
			t.Errorf("job %d: err = %v", i, r.Err)
		}
	}
	if got := s.ScanFiles(context.Background(), nil, 4); len(got) != 0 {
		t.Errorf("no jobs: %d results", len(got))
	}
}
