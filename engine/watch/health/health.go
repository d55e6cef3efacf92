// Package health is the one-call health view of a training job: GPU
// utilisation per GPU and on average, the NCCL transport (EFA/OFI, IB or
// TCP sockets), checkpoint progress, Ray resources used against
// available, and the issues found. It reads what the evidence holds and
// what the rules concluded; whether GPUs count as idle, a checkpoint as
// stale or a transport as a fallback is the rules' verdict, shown here,
// never decided again.
package health

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/engine/watch"
)

// Health is one job's health.
type Health struct {
	Job         string `json:"job"`
	Kind        string `json:"kind"`
	UID         string `json:"uid,omitempty"`
	Phase       string `json:"phase"`
	CollectedAt string `json:"collectedAt"`
	Healthy     bool   `json:"healthy"`
	Primary     string `json:"primary"`
	// Retryable says whether a restart can fix the primary cause.
	Retryable   bool        `json:"retryable"`
	GPU         GPU         `json:"gpu"`
	Transport   Transport   `json:"transport"`
	Checkpoints Checkpoints `json:"checkpoints"`
	Progress    Progress    `json:"progress"`
	Ray         *Ray        `json:"ray,omitempty"`
	Issues      []Issue     `json:"issues"`
}

// GPU is nvidia-smi's view.
type GPU struct {
	Pods []watch.PodGPUs `json:"pods"`
	// Utilization is every GPU of the running pods; Average their mean.
	Utilization []float64 `json:"utilization"`
	Average     *float64  `json:"average"`
	// Idle is the rules' verdict (a progress.gpu-idle finding).
	Idle bool `json:"idle"`
}

// Transport is NCCL's network transport.
type Transport struct {
	// Name is OFI (EFA), IB or socket; empty when no NCCL transport line
	// was seen.
	Name string `json:"name"`
	// Fallback is the rules' verdict that NCCL fell back to sockets where
	// EFA or RDMA was expected (an exec.efa-fallback finding).
	Fallback bool `json:"fallback"`
}

// Checkpoints is checkpoint progress.
type Checkpoints struct {
	LatestStep *int64 `json:"latestStep"`
	Path       string `json:"path,omitempty"`
	Time       string `json:"time,omitempty"`
	AgeSeconds *int64 `json:"ageSeconds,omitempty"`
	File       string `json:"file,omitempty"`
	// Stale is the rules' verdict (a progress.checkpoint-stale finding).
	Stale bool `json:"stale"`
}

// Progress is training progress from the logs.
type Progress struct {
	Step           *int64  `json:"step"`
	TotalSteps     *int64  `json:"totalSteps,omitempty"`
	LastStepTime   string  `json:"lastStepTime,omitempty"`
	Throughput     float64 `json:"throughput,omitempty"`
	ThroughputUnit string  `json:"throughputUnit,omitempty"`
	// Stalled is the rules' verdict (a progress.stalled finding).
	Stalled bool `json:"stalled"`
}

// Ray is `ray status`: resources used against available.
type Ray struct {
	GPUsUsed  float64 `json:"gpusUsed"`
	GPUsTotal float64 `json:"gpusTotal"`
	CPUsUsed  float64 `json:"cpusUsed"`
	CPUsTotal float64 `json:"cpusTotal"`
	File      string  `json:"file,omitempty"`
}

// Issue is a finding that is not the healthy verdict.
type Issue struct {
	Category    string `json:"category"`
	Severity    string `json:"severity"`
	Owner       string `json:"owner"`
	Title       string `json:"title"`
	Message     string `json:"message"`
	Primary     bool   `json:"primary,omitempty"`
	Consequence bool   `json:"consequence,omitempty"`
	Risk        bool   `json:"risk,omitempty"`
}

// Of diagnoses a snapshot and returns the health of the jobs named (by
// name or namespace/name; none means all), sorted.
func Of(ctx context.Context, d *diagnose.Diagnoser, dir string, jobs []string) ([]Health, error) {
	var (
		mu    sync.Mutex
		facts = map[string]*watch.Facts{}
	)
	rep, err := d.DiagnoseObserved(ctx, dir, func(snap *snapshot.Snapshot, job *evidence.Job) {
		f := watch.TakeFacts(snap, job)
		mu.Lock()
		facts[job.Namespace+"/"+job.Name] = f
		mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	var out []Health
	matched := map[string]bool{}
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		if !wanted(j, jobs, matched) {
			continue
		}
		out = append(out, build(j, facts[j.Key()], rep.CollectedAt))
	}
	for _, n := range jobs {
		if !matched[n] {
			return nil, fmt.Errorf("no job %q in the snapshot", n)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Job < out[b].Job })
	return out, nil
}

func wanted(j *report.Job, names []string, matched map[string]bool) bool {
	if len(names) == 0 {
		return true
	}
	ok := false
	for _, n := range names {
		if n == j.Name || n == j.Key() {
			matched[n], ok = true, true
		}
	}
	return ok
}

func build(j *report.Job, f *watch.Facts, collectedAt string) Health {
	h := Health{
		Job: j.Key(), Kind: j.Kind, UID: j.UID, Phase: j.Phase, CollectedAt: collectedAt,
		Healthy: j.Healthy, Retryable: j.Retryable, Issues: []Issue{},
		GPU: GPU{Pods: []watch.PodGPUs{}, Utilization: []float64{}},
	}
	if j.Primary != nil {
		h.Primary = j.Primary.Category
	}
	verdicts := map[string]bool{}
	for _, fd := range j.Findings {
		verdicts[fd.Category] = true
		if fd.Category == report.CategoryHealthy {
			continue
		}
		h.Issues = append(h.Issues, Issue{
			Category: fd.Category, Severity: fd.Severity, Owner: fd.Owner, Title: fd.Title.En, Message: fd.Message.En,
			Primary: j.Primary != nil && fd.ID == j.Primary.ID, Consequence: fd.Consequence, Risk: fd.Risk,
		})
	}
	h.GPU.Idle = verdicts["progress.gpu-idle"]
	h.Transport.Fallback = verdicts["exec.efa-fallback"]
	h.Checkpoints.Stale = verdicts["progress.checkpoint-stale"]
	h.Progress.Stalled = verdicts["progress.stalled"]
	if p := j.Progress; p != nil {
		h.Progress.Step, h.Progress.TotalSteps, h.Progress.LastStepTime = p.LastStep, p.TotalSteps, p.LastStepTime
		h.Progress.Throughput, h.Progress.ThroughputUnit = p.Throughput, p.ThroughputUnit
		h.Checkpoints.LatestStep, h.Checkpoints.Time = p.CheckpointStep, p.CheckpointTime
	}
	if f == nil {
		return h
	}
	if f.GPUs != nil {
		h.GPU.Pods = f.GPUs
	}
	h.GPU.Utilization = f.GPUUtil
	if len(f.GPUUtil) > 0 {
		var s float64
		for _, u := range f.GPUUtil {
			s += u
		}
		avg := round1(s / float64(len(f.GPUUtil)))
		h.GPU.Average = &avg
	}
	h.Transport.Name = f.Transport
	if c := f.Checkpoint; c != nil {
		step := c.Step
		h.Checkpoints.LatestStep, h.Checkpoints.Path, h.Checkpoints.Time, h.Checkpoints.File = &step, c.Path, c.Time, c.File
	}
	if t, err := time.Parse(time.RFC3339Nano, h.Checkpoints.Time); err == nil {
		if now, err := time.Parse(time.RFC3339, collectedAt); err == nil {
			age := int64(now.Sub(t).Seconds())
			h.Checkpoints.AgeSeconds = &age
		}
	}
	if r := f.Ray; r != nil {
		h.Ray = &Ray{GPUsUsed: r.GPUsUsed, GPUsTotal: r.GPUsTotal, CPUsUsed: r.CPUsUsed, CPUsTotal: r.CPUsTotal, File: r.File}
	}
	return h
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

// WriteJSON writes the health of the jobs as a JSON array.
func WriteJSON(w io.Writer, hs []Health) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if hs == nil {
		hs = []Health{}
	}
	return enc.Encode(hs)
}

// WriteText writes the health of the jobs for a terminal.
func WriteText(w io.Writer, hs []Health) error {
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteString("\n")
		}
		verdict := "healthy"
		if !h.Healthy {
			verdict = "unhealthy: " + h.Primary
		}
		fmt.Fprintf(&b, "%s (%s, %s) %s, at %s\n", h.Job, h.Kind, h.Phase, verdict, h.CollectedAt)
		fmt.Fprintf(&b, "  %-11s %s\n", "GPU", gpuText(h.GPU))
		for _, p := range h.GPU.Pods {
			fmt.Fprintf(&b, "  %-11s %s: %s\n", "", p.Pod, podGPUText(p))
		}
		fmt.Fprintf(&b, "  %-11s %s\n", "Transport", transportText(h.Transport))
		fmt.Fprintf(&b, "  %-11s %s\n", "Checkpoint", checkpointText(h.Checkpoints))
		fmt.Fprintf(&b, "  %-11s %s\n", "Progress", progressText(h.Progress))
		if h.Ray != nil {
			fmt.Fprintf(&b, "  %-11s GPUs %g/%g used, CPUs %g/%g used\n", "Ray", h.Ray.GPUsUsed, h.Ray.GPUsTotal, h.Ray.CPUsUsed, h.Ray.CPUsTotal)
		}
		if len(h.Issues) == 0 {
			fmt.Fprintf(&b, "  %-11s none\n", "Issues")
			continue
		}
		b.WriteString("  Issues\n")
		for _, is := range h.Issues {
			mark := ""
			switch {
			case is.Primary:
				mark = " (primary)"
			case is.Consequence:
				mark = " (consequence)"
			case is.Risk:
				mark = " (risk)"
			}
			fmt.Fprintf(&b, "    %-8s %s%s: %s\n", is.Severity, is.Category, mark, oneLine(is.Message))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func gpuText(g GPU) string {
	if g.Average == nil {
		return "no nvidia-smi output (run with --exec)"
	}
	s := fmt.Sprintf("%d GPU(s), average %g%%", len(g.Utilization), *g.Average)
	if g.Idle {
		s += ": idle"
	}
	return s
}

func podGPUText(p watch.PodGPUs) string {
	if p.Error != "" {
		return "nvidia-smi failed: " + p.Error
	}
	parts := make([]string, len(p.GPUs))
	for i, g := range p.GPUs {
		parts[i] = fmt.Sprintf("%d:%g%%", g.Index, g.Utilization)
	}
	return strings.Join(parts, " ")
}

func transportText(t Transport) string {
	var s string
	switch t.Name {
	case "OFI":
		s = "EFA (NCCL NET/OFI)"
	case "IB":
		s = "InfiniBand/RoCE (NCCL NET/IB)"
	case "socket":
		s = "TCP sockets (NCCL NET/Socket)"
	default:
		s = "unknown: no NCCL transport line seen (NCCL_DEBUG=INFO prints them)"
	}
	if t.Fallback {
		s += ": fell back from the fabric"
	}
	return s
}

func checkpointText(c Checkpoints) string {
	if c.LatestStep == nil {
		return "none listed"
	}
	s := fmt.Sprintf("step %d", *c.LatestStep)
	if c.Path != "" {
		s += " at " + c.Path
	}
	if c.AgeSeconds != nil {
		s += fmt.Sprintf(", %s old", (time.Duration(*c.AgeSeconds) * time.Second).String())
	}
	if c.Stale {
		s += ": stale"
	}
	return s
}

func progressText(p Progress) string {
	if p.Step == nil && p.ThroughputUnit == "" {
		s := "no step in the logs"
		if p.Stalled {
			s += "; the logs stopped: stalled"
		}
		return s
	}
	var parts []string
	if p.Step != nil {
		s := fmt.Sprintf("step %d", *p.Step)
		if p.TotalSteps != nil {
			s += fmt.Sprintf("/%d", *p.TotalSteps)
		}
		if p.LastStepTime != "" {
			s += " at " + p.LastStepTime
		}
		parts = append(parts, s)
	}
	if p.ThroughputUnit != "" {
		parts = append(parts, fmt.Sprintf("%g %s", p.Throughput, p.ThroughputUnit))
	}
	s := strings.Join(parts, ", ")
	if p.Stalled {
		s += ": stalled"
	}
	return s
}

// oneLine keeps a message on one terminal line: log text in it may hold
// control characters (escape sequences) that a terminal would obey.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	rs := []rune(strings.Join(strings.Fields(s), " "))
	if len(rs) > 160 {
		rs = append(rs[:157], []rune("...")...)
	}
	return string(rs)
}
