package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/execout"
)

// Observation is what one round saw of one job. It is printed as a JSON
// line ({"type":"observation",...}) and kept in the state, where the next
// rounds compare against it.
type Observation struct {
	Time    string `json:"time"`
	Job     string `json:"job"`
	Kind    string `json:"kind"`
	UID     string `json:"uid,omitempty"`
	Phase   string `json:"phase"`
	Healthy bool   `json:"healthy"`
	Primary string `json:"primary"`
	// Step is the newest training step the logs show; StepSince the
	// round in which this instance was first seen at it.
	Step      *int64 `json:"step"`
	StepSince string `json:"stepSince,omitempty"`
	// Throughput is the recent rate the logs show, in ThroughputUnit;
	// Baseline and Samples are the log's own figures, kept so that later
	// rounds whose logs lost the beginning still compare against them.
	Throughput     *float64 `json:"throughput"`
	ThroughputUnit string   `json:"throughputUnit,omitempty"`
	Baseline       float64  `json:"baseline,omitempty"`
	Samples        int      `json:"samples,omitempty"`
	// GPUUtil is nvidia-smi's utilization.gpu of every GPU of the job's
	// running pods, in pod then index order.
	GPUUtil []float64 `json:"gpuUtil"`
	// Transport is what NCCL selected: OFI (EFA), IB or socket.
	Transport  *string     `json:"transport"`
	Checkpoint *Checkpoint `json:"checkpoint"`
	// LogDigest fingerprints the end of the job's current logs; LogSince
	// is the round in which they were first seen like that.
	LogDigest string `json:"logDigest,omitempty"`
	LogSince  string `json:"logSince,omitempty"`
}

// Checkpoint is the newest complete checkpoint of a job.
type Checkpoint struct {
	Step int64  `json:"step"`
	Path string `json:"path,omitempty"`
	// Time is its modification time and AgeSeconds its age at the
	// observation, when the listing shows the time.
	Time       string `json:"time,omitempty"`
	AgeSeconds *int64 `json:"ageSeconds,omitempty"`
	// File is the listing it was read from.
	File string `json:"file,omitempty"`
}

// Transports, named after the signature ids the rules declare for NCCL's
// transport selection (policies/rules/exec/efa_fallback): what each id
// means stays in the rules; the watcher only reports which matched. When
// several matched, the fabric wins: a socket line beside a fabric line is
// a side channel.
var transports = []struct{ id, name string }{
	{"net.ofi-efa", "OFI"},
	{"net.nccl-ib", "IB"},
	{"net.nccl-socket", "socket"},
}

// TransportSignatures are the signature ids the watcher reads transport
// from; a test checks that the rules still declare them.
func TransportSignatures() []string {
	ids := make([]string, len(transports))
	for i, t := range transports {
		ids[i] = t.id
	}
	return ids
}

// Facts are what the watcher takes from one job's evidence: what the
// report does not carry.
type Facts struct {
	Kind, Namespace, Name, UID string
	GPUUtil                    []float64
	Transport                  string
	Checkpoint                 *Checkpoint
	LogDigest                  string
	// Ray is `ray status` of the job's head, when run.
	Ray *evidence.RayStatus
	// GPUs are the nvidia-smi rows per pod, for the health view.
	GPUs []PodGPUs
	// Object is the job's object as stored in the snapshot.
	Object map[string]any
	// RawThroughput is the logs' throughput before history was added.
	RawThroughput *evidence.Throughput
}

// PodGPUs are the GPUs nvidia-smi showed in one pod.
type PodGPUs struct {
	Pod   string         `json:"pod"`
	File  string         `json:"file,omitempty"`
	GPUs  []evidence.GPU `json:"gpus"`
	Error string         `json:"error,omitempty"`
}

// TakeFacts reads the facts of job from its evidence and snapshot.
func TakeFacts(snap *snapshot.Snapshot, job *evidence.Job) *Facts {
	f := &Facts{Kind: job.Kind, Namespace: job.Namespace, Name: job.Name, UID: job.UID, GPUUtil: []float64{}}
	pods := append([]evidence.Pod(nil), job.Pods...)
	sort.Slice(pods, func(a, b int) bool { return pods[a].Name < pods[b].Name })
	seen := map[string]bool{}
	for _, pod := range pods {
		if pod.Exec != nil && pod.Exec.NvidiaSMI != nil {
			smi := pod.Exec.NvidiaSMI
			f.GPUs = append(f.GPUs, PodGPUs{Pod: pod.Name, File: smi.File, GPUs: smi.GPUs, Error: smi.Error})
			if pod.Phase == evidence.PhaseRunning && smi.Error == "" {
				for _, g := range smi.GPUs {
					f.GPUUtil = append(f.GPUUtil, g.Utilization)
				}
			}
		}
		if pod.Exec != nil && pod.Exec.RayStatus != nil && f.Ray == nil {
			f.Ray = pod.Exec.RayStatus
		}
		if pod.Exec != nil && pod.Exec.Checkpoints != nil {
			if c := readCheckpoint(snap, pod.Exec.Checkpoints.File, job.Now, job.Progress.LastSavedStep); c != nil && (f.Checkpoint == nil || c.Step > f.Checkpoint.Step) {
				f.Checkpoint = c
			}
		}
		for _, c := range append(append([]evidence.Container(nil), pod.InitContainers...), pod.Containers...) {
			for _, lf := range c.Logs {
				for id := range lf.Matches {
					seen[id] = true
				}
			}
		}
	}
	for _, t := range transports {
		if seen[t.id] {
			f.Transport = t.name
			break
		}
	}
	f.LogDigest = logDigest(pods)
	f.Object = storedObject(snap, job)
	if job.Progress.Throughput != nil {
		tp := *job.Progress.Throughput
		f.RawThroughput = &tp
	}
	return f
}

// readCheckpoint parses a checkpoint listing again for what the rules'
// view drops: the checkpoint's path. A listed checkpoint newer than the
// last save the logs report is still being written, so it is not offered.
func readCheckpoint(snap *snapshot.Snapshot, rel, now string, lastSaved *int64) *Checkpoint {
	if rel == "" || snap == nil {
		return nil
	}
	file, err := snap.Open(rel)
	if err != nil {
		return nil
	}
	defer file.Close()
	t, _ := time.Parse(time.RFC3339, now)
	l, err := execout.ParseCheckpointListing(file, execout.ListingOptions{Now: t, LastSavedStep: lastSaved})
	if err != nil || l.Latest == nil {
		return nil
	}
	return &Checkpoint{Step: l.Latest.Step, Path: l.Latest.Path, Time: l.Latest.Time, File: rel}
}

// logDigest fingerprints the end of every current log of the job: the
// same digest in two rounds means nothing was written in between, even
// when the logs carry no timestamps and only their tail was fetched.
// Log excerpts from exec/ are left out: they are not the job's output.
func logDigest(pods []evidence.Pod) string {
	h := sha256.New()
	n := 0
	for _, pod := range pods {
		for _, c := range pod.Containers {
			for _, lf := range c.Logs {
				if lf.Previous || !strings.HasPrefix(lf.File, "logs/") {
					continue
				}
				n++
				h.Write([]byte(lf.File + "\x00"))
				for _, l := range lf.Tail {
					h.Write([]byte(l + "\n"))
				}
				h.Write([]byte{0})
			}
		}
	}
	if n == 0 {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// storedObject returns a copy of the job's object as the snapshot holds
// it: what a restart recreates.
func storedObject(snap *snapshot.Snapshot, job *evidence.Job) map[string]any {
	if snap == nil {
		return nil
	}
	for _, o := range snap.Objects {
		if o.Kind == job.Kind && o.Namespace == job.Namespace && o.Name == job.Name && (job.UID == "" || o.UID == job.UID) {
			b, err := json.Marshal(o.Raw)
			if err != nil {
				return nil
			}
			var m map[string]any
			if json.Unmarshal(b, &m) != nil {
				return nil
			}
			return m
		}
	}
	return nil
}

// Enrich adds to a job's evidence what earlier rounds observed of the same
// instance and one snapshot cannot show, for the rules to judge:
//   - a step with no timestamp that has not moved since an earlier round
//     was reached no later than that round (lastStepTime), and one that
//     moved was reached by now;
//   - logs with no timestamps whose end has not changed since an earlier
//     round were last written no later than that round (lastLogTime);
//   - a throughput series whose beginning the fetched log no longer holds
//     keeps the baseline an earlier round saw.
//
// It returns the step and log "since" times to record. Times from the
// logs themselves are never replaced.
func Enrich(job *evidence.Job, f *Facts, js *JobState, now time.Time) (stepSince, logSince string) {
	at := now.UTC().Format(time.RFC3339)
	prev := js.last(job.UID)
	p := &job.Progress
	if p.LastStep != nil {
		stepSince = at
		if prev != nil && prev.Step != nil && *prev.Step == *p.LastStep {
			stepSince = cmpOr(prev.StepSince, prev.Time)
		}
		if p.LastStepTime == "" && prev != nil {
			p.LastStepTime = stepSince
			if stepSince != at {
				p.Source = strings.TrimSpace(p.Source + " (step unchanged since " + stepSince + ", observed by traindoc watch)")
			}
		}
	}
	if f.LogDigest != "" {
		logSince = at
		if prev != nil && prev.LogDigest == f.LogDigest {
			logSince = cmpOr(prev.LogSince, prev.Time)
		}
		if p.LastLogTime == "" && prev != nil {
			p.LastLogTime = logSince
		}
	}
	if tp := p.Throughput; tp != nil {
		early := js.first(job.UID, func(o *Observation) bool { return o.ThroughputUnit == tp.Unit && o.Samples > 0 })
		if early != nil && early.Baseline > tp.Baseline {
			c := *tp
			c.Baseline = early.Baseline
			c.Samples = tp.Samples + early.Samples
			p.Throughput = &c
		}
	}
	return stepSince, logSince
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
