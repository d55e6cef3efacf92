package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/i18n"
)

// maxTimeline bounds the timeline; the last entry says how many were cut.
const maxTimeline = 400

// timeline merges job conditions, pod and container state changes and
// events in time order. Entries without a time are left out: a timeline
// is about order. The words traindoc writes are data (a catalogue key and
// its parameters); Text and TextZh are those words rendered, for readers
// of the JSON.
func timeline(job *evidence.Job) []report.Entry {
	var out []report.Entry
	// quote adds an entry that quotes the cluster: a condition.
	quote := func(t, kind, obj, reason, text string, warn bool) {
		if t == "" {
			return
		}
		out = append(out, report.Entry{Time: normTime(t), Kind: kind, Object: obj, Text: text, Reason: reason, Warning: warn})
	}
	// say adds an entry whose words traindoc wrote.
	say := func(t, kind, obj, key string, warn bool, params ...string) {
		if t == "" {
			return
		}
		e := report.Entry{Time: normTime(t), Kind: kind, Object: obj, Key: key, Warning: warn}
		if len(params) > 0 {
			e.Params = map[string]string{}
			for i := 0; i+1 < len(params); i += 2 {
				e.Params[params[i]] = redact.String(params[i+1])
			}
		}
		e.Text = i18n.TMap("en", key, e.Params)
		e.TextZh = i18n.TMap("zh", key, e.Params)
		out = append(out, e)
	}
	jobObj := job.Kind + "/" + job.Name
	say(job.CreatedAt, "condition", jobObj, "engine.timeline.job_created", false)
	for _, c := range job.Status.Conditions {
		quote(c.LastTransitionTime, "condition", jobObj, c.Type, condText(c), c.Type == "Failed" && c.Status == "True")
	}
	for _, ch := range job.Children {
		for _, c := range ch.Conditions {
			quote(c.LastTransitionTime, "condition", ch.Kind+"/"+ch.Name, c.Type, condText(c), c.Type == "Failed" && c.Status == "True")
		}
	}
	for _, p := range job.Pods {
		obj := "Pod/" + p.Name
		say(p.CreatedAt, "pod", obj, "engine.timeline.pod_created", false)
		for _, c := range p.Conditions {
			if c.Type == "PodScheduled" || c.Type == "DisruptionTarget" {
				quote(c.LastTransitionTime, "pod", obj, c.Type, condText(c), c.Status == "False" || c.Type == "DisruptionTarget")
			}
		}
		for _, c := range append(append([]evidence.Container{}, p.InitContainers...), p.Containers...) {
			for _, s := range []evidence.ContainerState{c.LastState, c.State} {
				switch s.State {
				case "running":
					say(s.StartedAt, "container", obj, "engine.timeline.container_started", false, "container", c.Name)
				case "terminated":
					say(s.StartedAt, "container", obj, "engine.timeline.container_started", false, "container", c.Name)
					code := 0
					if s.ExitCode != nil {
						code = *s.ExitCode
					}
					if s.Reason != "" {
						say(s.FinishedAt, "container", obj, "engine.timeline.container_terminated_reason", code != 0,
							"container", c.Name, "code", strconv.Itoa(code), "reason", s.Reason)
					} else {
						say(s.FinishedAt, "container", obj, "engine.timeline.container_terminated", code != 0,
							"container", c.Name, "code", strconv.Itoa(code))
					}
				}
			}
		}
	}
	for _, e := range job.Events {
		obj := e.Object.Kind + "/" + e.Object.Name
		if e.Count > 1 {
			say(e.FirstTime, "event", obj, "engine.timeline.event_repeated", e.Type == "Warning",
				"reason", e.Reason, "message", e.Message, "count", strconv.Itoa(e.Count), "last", normTime(e.LastTime))
		} else {
			say(e.FirstTime, "event", obj, "engine.timeline.event", e.Type == "Warning", "reason", e.Reason, "message", e.Message)
		}
		if e.FirstTime != "" {
			out[len(out)-1].Reason = e.Reason
		}
	}
	out = dedupeEntries(sortEntries(out))
	if len(out) > maxTimeline {
		cut := len(out) - maxTimeline
		out = out[:maxTimeline:maxTimeline]
		say(out[len(out)-1].Time, "note", jobObj, "engine.timeline.later_not_shown", false, "n", strconv.Itoa(cut))
	}
	return out
}

// sortEntries orders entries by time, then object, then text. Times are
// parsed once each rather than at every comparison: a job with a hundred
// thousand events has as many entries before the timeline is cut.
func sortEntries(in []report.Entry) []report.Entry {
	type keyed struct {
		t  time.Time
		ok bool
		e  *report.Entry
	}
	ks := make([]keyed, len(in))
	for i := range in {
		t, ok := parseTime(in[i].Time)
		ks[i] = keyed{t, ok, &in[i]}
	}
	sort.SliceStable(ks, func(a, b int) bool {
		ea, eb := ks[a].e, ks[b].e
		if ea.Time != eb.Time {
			// As before(): parseable times first, in order.
			switch {
			case ks[a].ok && ks[b].ok:
				return ks[a].t.Before(ks[b].t)
			case ks[a].ok:
				return true
			}
			return false
		}
		if ea.Object != eb.Object {
			return ea.Object < eb.Object
		}
		return ea.Text < eb.Text
	})
	out := make([]report.Entry, len(in))
	for i, k := range ks {
		out[i] = *k.e
	}
	return out
}

// dedupeEntries drops an entry equal to the one before it.
func dedupeEntries(in []report.Entry) []report.Entry {
	out := in[:0]
	for i, e := range in {
		if i > 0 && sameEntry(e, in[i-1]) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func sameEntry(a, b report.Entry) bool {
	return a.Time == b.Time && a.Kind == b.Kind && a.Object == b.Object && a.Text == b.Text &&
		a.TextZh == b.TextZh && a.Warning == b.Warning && a.Key == b.Key && a.Reason == b.Reason
}

func condText(c evidence.Condition) string {
	parts := []string{c.Type + "=" + c.Status}
	if c.Reason != "" {
		parts = append(parts, c.Reason)
	}
	text := strings.Join(parts, " ")
	if c.Message != "" {
		text += ": " + c.Message
	}
	return text
}

// replicas is the replica table.
func replicas(job *evidence.Job) []report.Replica {
	out := make([]report.Replica, 0, len(job.Replicas))
	for _, g := range job.Replicas {
		out = append(out, report.Replica{
			Type: g.Type, Expected: g.Expected, Created: g.Created, Pending: g.Pending,
			Running: g.Running, Succeeded: g.Succeeded, Failed: g.Failed, Restarts: g.Restarts,
		})
	}
	return out
}

// progress summarises training progress for reports.
func progress(job *evidence.Job) *report.Progress {
	p := &report.Progress{}
	known := false
	jp := job.Progress
	if jp.Known {
		known = true
		p.LastStep, p.TotalSteps, p.LastStepTime, p.LastLoss = jp.LastStep, jp.TotalSteps, jp.LastStepTime, jp.LastLoss
		if jp.Throughput != nil {
			p.Throughput, p.ThroughputUnit, p.BaselineThroughput = jp.Throughput.Recent, jp.Throughput.Unit, jp.Throughput.Baseline
		}
	}
	if jp.Checkpoint != nil && jp.Checkpoint.LatestStep != nil {
		known = true
		p.CheckpointStep, p.CheckpointTime = jp.Checkpoint.LatestStep, jp.Checkpoint.LatestTime
	}
	var sum float64
	n := 0
	for _, pod := range job.Pods {
		if pod.Exec != nil && pod.Exec.NvidiaSMI != nil && len(pod.Exec.NvidiaSMI.GPUs) > 0 {
			sum += pod.Exec.NvidiaSMI.AvgUtilization
			n++
		}
	}
	if n > 0 {
		avg := sum / float64(n)
		p.GPUUtilization = &avg
		known = true
	}
	if !known {
		return nil
	}
	return p
}

func sortStrings(xs []string) { sort.Strings(xs) }

// pods builds the per-pod table, marking the pods findings are about and
// the global ranks they name.
func pods(job *evidence.Job, findings []report.Finding) []report.Pod {
	ranks := map[string][]int{}
	failing := map[string]bool{}
	for _, f := range findings {
		fault := f.Category != report.CategoryHealthy && !f.Risk
		for _, s := range f.Subjects {
			if s.Kind != "Pod" {
				continue
			}
			if fault {
				failing[s.Name] = true
			}
			if s.Rank != nil && !slices.Contains(ranks[s.Name], *s.Rank) {
				ranks[s.Name] = append(ranks[s.Name], *s.Rank)
			}
		}
	}
	out := make([]report.Pod, 0, len(job.Pods))
	for i := range job.Pods {
		p := &job.Pods[i]
		row := report.Pod{
			Name: p.Name, Role: p.ReplicaType, Index: p.ReplicaIndex, Node: p.NodeName, Phase: p.Phase,
			Ranks: slices.Sorted(slices.Values(ranks[p.Name])), Failing: failing[p.Name],
		}
		if len(p.Containers) > 0 {
			c := &p.Containers[0]
			row.Restarts = c.RestartCount
			row.State = strings.TrimSuffix(c.State.State+": "+c.State.Reason, ": ")
			// A crash-looping container waits now; its exit code is the
			// last instance's.
			switch {
			case c.State.State == "terminated":
				row.ExitCode = c.State.ExitCode
			case c.LastState.State == "terminated":
				row.ExitCode = c.LastState.ExitCode
			}
			for _, lf := range c.Logs {
				if !lf.Previous && !lf.Exec {
					if l := lastTellingLine(lf.Tail); l != "" {
						row.LastLine = redact.String(l)
					}
				}
			}
			row.LastLines, row.TailPrevious = lastLines(c)
		}
		out = append(out, row)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// missing lists what the job was diagnosed without: what the collector
// could not read about the job's namespace and pods (snapshot.yaml), and
// the logs of containers that ran but have none in the snapshot.
func missing(s *snapshot.Snapshot, job *evidence.Job) []report.Missing {
	pods := map[string]*evidence.Pod{}
	for i := range job.Pods {
		pods[job.Pods[i].Name] = &job.Pods[i]
	}
	var out []report.Missing
	known := map[string]bool{}
	for _, m := range s.Missing {
		if m.Namespace != "" && m.Namespace != job.Namespace {
			continue
		}
		if m.Pod != "" && pods[m.Pod] == nil {
			continue
		}
		out = append(out, report.Missing{What: m.What, Object: missingObject(m.Namespace, m.Pod, m.Container), Reason: m.Reason})
		known[m.What+"/"+m.Pod+"/"+m.Container] = true
	}
	for i := range job.Pods {
		p := &job.Pods[i]
		for _, c := range p.Containers {
			ran := c.State.State == "running" || c.State.State == "terminated"
			if !ran || known["logs/"+p.Name+"/"+c.Name] || hasOwnLog(c) {
				continue
			}
			out = append(out, report.Missing{What: "logs", Object: missingObject(p.Namespace, p.Name, c.Name), Reason: "not in the snapshot"})
		}
	}
	if job.Phase == evidence.PhaseRunning && len(job.Pods) == 0 {
		out = append(out, report.Missing{What: "pods", Object: missingObject(job.Namespace, "", ""), Reason: "no pod of the running job is in the snapshot"})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].What != out[b].What {
			return out[a].What < out[b].What
		}
		return out[a].Object < out[b].Object
	})
	return out
}

func hasOwnLog(c evidence.Container) bool {
	for _, lf := range c.Logs {
		if !lf.Exec && !lf.Previous {
			return true
		}
	}
	return false
}

func missingObject(ns, pod, container string) string {
	switch {
	case pod != "" && container != "":
		return fmt.Sprintf("pod %s/%s container %s", ns, pod, container)
	case pod != "":
		return fmt.Sprintf("pod %s/%s", ns, pod)
	case ns != "":
		return "namespace " + ns
	}
	return ""
}

// podTailLines is how many log lines the pod table keeps per pod.
const podTailLines = 8

// lastLines are the last lines of the log of the container's last run: the
// previous instance's when the container waits to restart (a crash loop),
// else the current one's. They are redacted as one block, so that a secret
// split over lines is caught.
// lastTellingLine is the last line of a log tail that says something: a
// rule of "=====" or a blank line that closes a banner tells a reader of
// the pod table nothing about how the container ended.
func lastTellingLine(tail []string) string {
	for i := len(tail) - 1; i >= 0; i-- {
		if strings.IndexFunc(tail[i], func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return tail[i]
		}
	}
	return ""
}

func lastLines(c *evidence.Container) ([]string, bool) {
	wantPrevious := c.State.State == "waiting" && c.LastState.State == "terminated"
	var pick []string
	prev := false
	for _, lf := range c.Logs {
		// Command outputs scanned like logs are not the container's.
		if len(lf.Tail) == 0 || lf.Exec {
			continue
		}
		if lf.Previous == wantPrevious || pick == nil {
			pick, prev = lf.Tail, lf.Previous
		}
	}
	if len(pick) > podTailLines {
		pick = pick[len(pick)-podTailLines:]
	}
	if len(pick) == 0 {
		return nil, false
	}
	return redact.Lines(append([]string(nil), pick...)), prev
}
