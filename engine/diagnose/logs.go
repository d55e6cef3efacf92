package diagnose

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/execout"
	"github.com/traindoc/traindoc/internal/logscan"
	"github.com/traindoc/traindoc/internal/regfile"
)

// logScanner attaches scanned logs and in-pod outputs to a job's pods. The
// matcher is compiled once from the signatures and progress patterns the
// rules declare; each log file is then streamed exactly once.
type logScanner struct {
	scanner *logscan.Scanner
}

func newLogScanner(e *policy.Engine) (*logScanner, error) {
	sc, err := logscan.Compile(e.Signatures, e.ProgressPatterns)
	if err != nil {
		return nil, fmt.Errorf("compile log signatures: %w", err)
	}
	return &logScanner{scanner: sc}, nil
}

// attach scans the logs of the job's pods, concurrently and with results
// in a fixed order, and parses their in-pod command outputs. Outputs no
// parser reads (a kernel log, a notebook's output, Ray's session logs) are
// scanned with the same signatures, as logs of the pod's main container
// marked as command output, after progress is computed from the real logs
// so that they never count as training progress. It returns what could
// not be read or was read only in part, as warnings for the job.
func (l *logScanner) attach(ctx context.Context, s *snapshot.Snapshot, job *evidence.Job, workers int) []string {
	var warnings []string
	// Checkpoint listings print recent times without a year; the snapshot
	// time anchors them.
	now, _ := parseTime(job.Now)
	type target struct {
		pod       *evidence.Pod
		container string
		ref       snapshot.LogRef
		exec      bool
	}
	var logs []target
	for i := range job.Pods {
		pod := &job.Pods[i]
		for _, ref := range s.PodLogs(pod.Namespace, pod.Name) {
			logs = append(logs, target{pod: pod, container: ref.Container, ref: ref})
		}
	}
	results := l.scan(ctx, s.FS(), len(logs), func(i int) string { return logs[i].ref.Rel }, workers)
	for i, t := range logs {
		lf, err := results[i].Log, results[i].Err
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v", t.ref.Rel, err))
			continue
		}
		lf.File, lf.Previous = t.ref.Rel, t.ref.Previous
		warnings = append(warnings, skipped(lf)...)
		c := containerFor(t.pod, t.container)
		c.Logs = append(c.Logs, lf)
	}
	var outputs []target
	saved := logscan.JobProgress(job.Pods).LastSavedStep
	for i := range job.Pods {
		pod := &job.Pods[i]
		dir, ok := s.PodExec(pod.Namespace, pod.Name)
		if !ok {
			continue
		}
		out, errs := execout.ParseFS(s.FS(), dir, now)
		if out != nil && out.Checkpoints != nil && saved != nil {
			out.Checkpoints = checkpointsSaved(s, out.Checkpoints, now, saved)
		}
		pod.Exec = out
		for _, err := range errs {
			warnings = append(warnings, err.Error())
		}
		if out == nil {
			continue
		}
		for _, o := range out.Other {
			outputs = append(outputs, target{pod: pod, ref: snapshot.LogRef{Rel: o.File}, exec: true})
		}
	}
	job.Progress = logscan.JobProgress(job.Pods)
	results = l.scan(ctx, s.FS(), len(outputs), func(i int) string { return outputs[i].ref.Rel }, workers)
	for i, t := range outputs {
		lf, err := results[i].Log, results[i].Err
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v", t.ref.Rel, err))
			continue
		}
		lf.File, lf.Exec, lf.Progress = t.ref.Rel, true, nil
		warnings = append(warnings, skipped(lf)...)
		c := containerFor(t.pod, "")
		c.Logs = append(c.Logs, lf)
	}
	// Without collectedAt, the newest time seen anywhere stands for now,
	// and log lines are part of "anywhere".
	if s.CollectedAt == "" && job.Progress.LastLogTime != "" && before(job.Now, job.Progress.LastLogTime) {
		if t, ok := parseTime(job.Progress.LastLogTime); ok {
			job.Now = t.UTC().Format(time.RFC3339)
		}
	}
	return warnings
}

// checkpointsSaved reads a pod's checkpoint listing again knowing the
// newest save the logs report: a listed checkpoint beyond it is still
// being written. The first reading stands when the file cannot be read
// again.
func checkpointsSaved(s *snapshot.Snapshot, ck *evidence.Checkpoints, now time.Time, saved *int64) *evidence.Checkpoints {
	data, err := regfile.ReadFileFS(s.FS(), ck.File, maxListing)
	if err != nil {
		return ck
	}
	l, err := execout.ParseCheckpointListing(bytes.NewReader(data), execout.ListingOptions{Now: now, LastSavedStep: saved})
	if err != nil {
		return ck
	}
	out := l.Evidence()
	out.File = ck.File
	return out
}

// maxListing bounds a checkpoint listing read again, as execout bounds
// its first reading.
const maxListing = 4 << 20

func (l *logScanner) scan(ctx context.Context, fsys fs.FS, n int, nameOf func(int) string, workers int) []logscan.FileResult {
	if n == 0 {
		return nil
	}
	jobs := make([]logscan.FileJob, n)
	for i := range jobs {
		jobs[i] = logscan.FileJob{FS: fsys, Name: nameOf(i)}
	}
	return l.scanner.ScanFiles(ctx, jobs, workers)
}

// skipped says which bytes of a log were read but not matched, so that
// nothing is lost without a word: the middles of over-long lines, NUL
// bytes, a file that is binary.
func skipped(lf evidence.LogFile) []string {
	var out []string
	for _, r := range lf.Skipped {
		switch r.Reason {
		case logscan.SkipLongLine:
			out = append(out, fmt.Sprintf("%s: %d lines longer than the scanner's line limit; their first and last parts were read, %s in their middles were not", lf.File, r.Lines, byteCount(r.Bytes)))
		case logscan.SkipBinary:
			out = append(out, fmt.Sprintf("%s: binary data, %s not read as log lines", lf.File, byteCount(r.Bytes)))
		case logscan.SkipNUL:
			out = append(out, fmt.Sprintf("%s: %s of NUL bytes dropped", lf.File, byteCount(r.Bytes)))
		default:
			out = append(out, fmt.Sprintf("%s: %s not scanned (%s)", lf.File, byteCount(r.Bytes), r.Reason))
		}
	}
	return out
}

func byteCount(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// containerFor returns the pod's container called name; "" is the pod's
// main (first) container. A log for a container the pod object does not
// list still gets a container entry so that its evidence is not lost.
func containerFor(pod *evidence.Pod, name string) *evidence.Container {
	if name == "" && len(pod.Containers) > 0 {
		return &pod.Containers[0]
	}
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	for i := range pod.InitContainers {
		if pod.InitContainers[i].Name == name {
			return &pod.InitContainers[i]
		}
	}
	if name == "" {
		name = "main"
	}
	pod.Containers = append(pod.Containers, evidence.Container{ContainerSpec: evidence.ContainerSpec{Name: name}})
	return &pod.Containers[len(pod.Containers)-1]
}
