package logscan

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sync"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/internal/regfile"
)

// FileJob is one log file to scan: the file Name of FS (a snapshot's, or
// regfile.DirFS for a folder of this machine). Only a regular file is
// opened.
type FileJob struct {
	FS      fs.FS
	Name    string
	Options Options
}

// FileResult is what scanning one FileJob gave: the log, or the error
// that stopped the scan with what was found before it.
type FileResult struct {
	Log evidence.LogFile
	Err error
}

// ScanFiles scans many files with at most workers at once (GOMAXPROCS
// when workers <= 0) and returns their results in the order of jobs, so
// that the outcome does not depend on scheduling. Each file is still read
// once, by one goroutine; a Scanner is safe for concurrent scans. When ctx
// is done, files not yet scanned get ctx's error and scans under way stop
// at their next read.
func (s *Scanner) ScanFiles(ctx context.Context, jobs []FileJob, workers int) []FileResult {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	out := make([]FileResult, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = s.scanJob(ctx, jobs[i])
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			for j := i; j < len(jobs); j++ {
				out[j] = FileResult{Err: fmt.Errorf("scan %s: %w", jobs[j].Name, ctx.Err())}
			}
			break feed
		}
	}
	close(next)
	wg.Wait()
	return out
}

func (s *Scanner) scanJob(ctx context.Context, job FileJob) FileResult {
	if err := ctx.Err(); err != nil {
		return FileResult{Err: fmt.Errorf("scan %s: %w", job.Name, err)}
	}
	f, _, err := regfile.OpenFS(job.FS, job.Name)
	if err != nil {
		return FileResult{Err: fmt.Errorf("scan %s: %w", job.Name, err)}
	}
	defer f.Close()
	lf, err := s.Scan(ctxReader{ctx, f}, job.Options)
	if err != nil {
		err = fmt.Errorf("scan %s: %w", job.Name, err)
	}
	return FileResult{Log: lf, Err: err}
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
