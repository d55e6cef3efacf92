package watch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Round is one snapshot to diagnose.
type Round struct {
	// Dir is the snapshot directory; Name names the round in logs.
	Dir, Name string
	// Cleanup releases the snapshot (a live round's temporary directory).
	Cleanup func()
}

// Source yields the rounds: snapshots taken from a cluster, or a replay
// of saved ones. Next returns io.EOF when there are no more.
type Source interface {
	Next(ctx context.Context) (*Round, error)
}

// Replay is a Source over saved snapshots: the sub-folders of a directory
// in name order, one round each. Each snapshot's collectedAt is its
// round's time, so a replay runs without waiting and gives the same
// output every time.
type Replay struct {
	dirs []string
	next int
}

// NewReplay lists the rounds of dir.
func NewReplay(dir string) (*Replay, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var dirs []string
	for _, e := range entries {
		// A round may be a symlink to a snapshot kept elsewhere; the
		// snapshot reader walks a real folder.
		p, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("replay %s: no round folders", dir)
	}
	sort.Strings(dirs)
	return &Replay{dirs: dirs}, nil
}

// Next returns the next saved round.
func (r *Replay) Next(ctx context.Context) (*Round, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.next >= len(r.dirs) {
		return nil, io.EOF
	}
	d := r.dirs[r.next]
	r.next++
	return &Round{Dir: d, Name: filepath.Base(d), Cleanup: func() {}}, nil
}
