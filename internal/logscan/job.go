package logscan

import (
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

// JobProgress summarises progress at job level from every container log
// (current and previous instances) and every pod's in-pod outputs: the
// most advanced step and where it was seen, the newest log time, the
// throughput of the log with the most throughput samples, the last loss of
// the most advanced log, the newest checkpoint save any log reports, and
// the newest checkpoint listing.
//
// Pods and containers are visited in the order given and ties keep the
// first, so the result is deterministic for a sorted evidence record.
func JobProgress(pods []evidence.Pod) evidence.Progress {
	var (
		out      evidence.Progress
		bestStep *evidence.LogProgress
		lastLog  time.Time
		bestTP   *evidence.Throughput
	)
	newer := func(s string) {
		if t := parseTime(s); !t.IsZero() && t.After(lastLog) {
			lastLog = t
			out.LastLogTime = formatTime(t)
		}
	}
	for _, pod := range pods {
		for _, cs := range [][]evidence.Container{pod.InitContainers, pod.Containers} {
			for _, c := range cs {
				for _, lf := range c.Logs {
					newer(lf.LastTime)
					p := lf.Progress
					if p == nil {
						continue
					}
					newer(p.LastStepTime)
					if p.LastStep != nil && (bestStep == nil || *p.LastStep > *bestStep.LastStep) {
						bestStep = p
						out.Source = lf.File
					}
					if p.Throughput != nil && (bestTP == nil || p.Throughput.Samples > bestTP.Samples) {
						bestTP = p.Throughput
					}
					if p.Throughput != nil || p.LastStep != nil {
						out.Known = true
					}
					if p.LastSavedStep != nil && (out.LastSavedStep == nil || *p.LastSavedStep > *out.LastSavedStep) {
						out.LastSavedStep, out.LastSavedTime = p.LastSavedStep, p.LastSavedTime
					}
				}
			}
		}
		if pod.Exec != nil && pod.Exec.Checkpoints != nil {
			ck := pod.Exec.Checkpoints
			if out.Checkpoint == nil || newerCheckpoint(ck, out.Checkpoint) {
				out.Checkpoint = ck
			}
		}
	}
	if bestStep != nil {
		out.LastStep = bestStep.LastStep
		out.LastStepTime = bestStep.LastStepTime
		out.TotalSteps = bestStep.TotalSteps
		out.LastLoss = bestStep.LastLoss
	}
	out.Throughput = bestTP
	return out
}

// newerCheckpoint prefers the listing with the higher latest step, then
// the one with a step at all.
func newerCheckpoint(a, b *evidence.Checkpoints) bool {
	switch {
	case a.LatestStep == nil:
		return false
	case b.LatestStep == nil:
		return true
	}
	return *a.LatestStep > *b.LatestStep
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
