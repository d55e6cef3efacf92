package logscan

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/traindoc/traindoc/internal/regfile"
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
		jobs = append(jobs, FileJob{FS: regfile.DirFS(dir), Name: name})
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
	jobs = append(jobs, FileJob{FS: regfile.DirFS(dir), Name: "missing.log"})
	jobs[0].Options = Options{TailLines: 3, MaxSamples: 1}

	var want []FileResult
	for _, j := range jobs {
		lf, err := s.ScanFile(filepath.Join(dir, j.Name), j.Options)
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
			if !reflect.DeepEqual(got[i].Log, want[i].Log) || errKind(got[i].Err) != errKind(want[i].Err) {
				t.Errorf("workers %d, %s: result differs from a serial scan (%v, want %v)", workers, jobs[i].Name, got[i].Err, want[i].Err)
			}
		}
	}
}

// errKind tells the outcomes apart without the path, which ScanFile gives
// whole and ScanFiles gives relative to the job's FS.
func errKind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, fs.ErrNotExist):
		return "not exist"
	}
	return "other"
}

func TestScanFilesCancelled(t *testing.T) {
	s := mustCompile(t, testSignatures(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	jobs := []FileJob{{FS: regfile.DirFS("testdata"), Name: "cri.log"}, {FS: regfile.DirFS("testdata"), Name: "chained.log"}}
	for i, r := range s.ScanFiles(ctx, jobs, 2) {
		if !errors.Is(r.Err, context.Canceled) {
			t.Errorf("job %d: err = %v", i, r.Err)
		}
	}
	if got := s.ScanFiles(context.Background(), nil, 4); len(got) != 0 {
		t.Errorf("no jobs: %d results", len(got))
	}
}
