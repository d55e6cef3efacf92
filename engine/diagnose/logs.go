package diagnose

import (
	"fmt"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/execout"
	"github.com/traindoc/traindoc/engine/logscan"
	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/snapshot"
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

// attach scans the logs of the job's pods and parses their in-pod command
// outputs. It returns warnings for files it could not read.
func (l *logScanner) attach(s *snapshot.Snapshot, job *evidence.Job) []string {
	var warnings []string
	// Checkpoint listings print recent times without a year; the snapshot
	// time anchors them.
	now, _ := parseTime(job.Now)
	for i := range job.Pods {
		pod := &job.Pods[i]
		for _, ref := range s.PodLogs(pod.Namespace, pod.Name) {
			c := containerFor(pod, ref.Container)
			lf, err := l.scanner.ScanFile(ref.Path, logscan.Options{})
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: %v", ref.Rel, err))
				continue
			}
			lf.File, lf.Previous = ref.Rel, ref.Previous
			c.Logs = append(c.Logs, lf)
		}
		if dir, ok := s.PodExec(pod.Namespace, pod.Name); ok {
			out, errs := execout.ParseDirRel(dir, s.Rel(dir), now)
			pod.Exec = out
			for _, err := range errs {
				warnings = append(warnings, err.Error())
			}
		}
	}
	job.Progress = logscan.JobProgress(job.Pods)
	// Without collectedAt, the newest time seen anywhere stands for now,
	// and log lines are part of "anywhere".
	if s.CollectedAt == "" && job.Progress.LastLogTime != "" && before(job.Now, job.Progress.LastLogTime) {
		if t, ok := parseTime(job.Progress.LastLogTime); ok {
			job.Now = t.UTC().Format(time.RFC3339)
		}
	}
	return warnings
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
