package diagnose

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/logscan"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// excerptSuffix names an in-pod output that is an excerpt of log files the
// container does not print to stdout: a grep of the NCCL transport lines in
// Ray's session logs (/tmp/ray/session_latest/logs/worker*.out), say. Such
// an output is scanned with the rules' signatures like a log of the pod's
// main container, so the rules that read transport selection see it.
const excerptSuffix = ".log.txt"

// attachExcerpts scans the pods' log excerpts. It runs after attach, so
// that an excerpt never counts as training progress or as the log moving.
func (l *logScanner) attachExcerpts(s *snapshot.Snapshot, job *evidence.Job) []string {
	var warnings []string
	for i := range job.Pods {
		pod := &job.Pods[i]
		dir, ok := s.Exec[pod.Name]
		if !ok {
			continue
		}
		names, err := excerpts(dir)
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		for _, name := range names {
			rel := path.Join("exec", pod.Name, name)
			lf, err := l.scanner.ScanFile(filepath.Join(dir, name), logscan.Options{})
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: %v", rel, err))
				continue
			}
			lf.File = rel
			c := containerFor(pod, "")
			c.Logs = append(c.Logs, lf)
		}
	}
	return warnings
}

func excerpts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("exec outputs %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), excerptSuffix) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}
