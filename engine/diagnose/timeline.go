package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// maxTimeline bounds the timeline; the last entry says how many were cut.
const maxTimeline = 400

// timeline merges job conditions, pod and container state changes and
// events in time order. Entries without a time are left out: a timeline
// is about order.
func timeline(job *evidence.Job) []report.Entry {
	var out []report.Entry
	add := func(t, kind, obj, text string, warn bool) {
		if t == "" {
			return
		}
		out = append(out, report.Entry{Time: normTime(t), Kind: kind, Object: obj, Text: text, Warning: warn})
	}
	// addBoth adds an entry whose words traindoc wrote, in both languages.
	addBoth := func(t, kind, obj, en, zh string, warn bool) {
		add(t, kind, obj, en, warn)
		if t != "" {
			out[len(out)-1].TextZh = zh
		}
	}
	jobObj := job.Kind + "/" + job.Name
	addBoth(job.CreatedAt, "condition", jobObj, "created", "已创建", false)
	for _, c := range job.Status.Conditions {
		add(c.LastTransitionTime, "condition", jobObj, condText(c), c.Type == "Failed" && c.Status == "True")
	}
	for _, ch := range job.Children {
		for _, c := range ch.Conditions {
			add(c.LastTransitionTime, "condition", ch.Kind+"/"+ch.Name, condText(c), c.Type == "Failed" && c.Status == "True")
		}
	}
	for _, p := range job.Pods {
		obj := "Pod/" + p.Name
		addBoth(p.CreatedAt, "pod", obj, "created", "已创建", false)
		for _, c := range p.Conditions {
			if c.Type == "PodScheduled" || c.Type == "DisruptionTarget" {
				add(c.LastTransitionTime, "pod", obj, condText(c), c.Status == "False" || c.Type == "DisruptionTarget")
			}
		}
		for _, c := range append(append([]evidence.Container{}, p.InitContainers...), p.Containers...) {
			for _, s := range []evidence.ContainerState{c.LastState, c.State} {
				switch s.State {
				case "running":
					addBoth(s.StartedAt, "container", obj, "container "+c.Name+" started", "容器 "+c.Name+" 已启动", false)
				case "terminated":
					addBoth(s.StartedAt, "container", obj, "container "+c.Name+" started", "容器 "+c.Name+" 已启动", false)
					code := 0
					if s.ExitCode != nil {
						code = *s.ExitCode
					}
					en := fmt.Sprintf("container %s terminated: exit code %d", c.Name, code)
					zh := fmt.Sprintf("容器 %s 已终止：退出码 %d", c.Name, code)
					if s.Reason != "" {
						en += ", " + s.Reason
						zh += "，" + s.Reason
					}
					addBoth(s.FinishedAt, "container", obj, en, zh, code != 0)
				}
			}
		}
	}
	for _, e := range job.Events {
		text := e.Reason + ": " + e.Message
		if e.Count > 1 {
			text += fmt.Sprintf(" (×%d, last %s)", e.Count, normTime(e.LastTime))
		}
		add(e.FirstTime, "event", e.Object.Kind+"/"+e.Object.Name, text, e.Type == "Warning")
	}
	out = dedupeEntries(sortEntries(out))
	if len(out) > maxTimeline {
		cut := len(out) - maxTimeline
		out = append(out[:maxTimeline:maxTimeline], report.Entry{
			Time: out[len(out)-1].Time, Kind: "note", Object: jobObj,
			Text:   fmt.Sprintf("%d later entries not shown", cut),
			TextZh: fmt.Sprintf("另有 %d 条较晚的记录未显示", cut),
		})
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

func dedupeEntries(in []report.Entry) []report.Entry {
	out := in[:0]
	for i, e := range in {
		if i > 0 && e == in[i-1] {
			continue
		}
		out = append(out, e)
	}
	return out
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
				if !lf.Previous && len(lf.Tail) > 0 {
					row.LastLine = lf.Tail[len(lf.Tail)-1]
				}
			}
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
