// Package adapt turns the objects of a snapshot into one evidence.Job per
// training job. Each job kind has a small adapter in its own file that
// reads the kind's spec and status; everything else (linking pods, events,
// nodes, quotas and pod groups to the job, counting replicas) is shared.
package adapt

import (
	"sort"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// kindAdapter reads one job kind.
type kindAdapter interface {
	// matches reports whether the object is a job of this kind.
	matches(o *snapshot.Object) bool
	// build fills the kind-specific parts: phase, status, replica groups
	// with their expected counts and templates, spec facts.
	build(o *snapshot.Object, ix *index, job *evidence.Job)
}

var adapters = []kindAdapter{kubeflowAdapter{}, trainJobAdapter{}, t9kAdapter{}, rayJobAdapter{}, rayClusterAdapter{}}

// Build returns the jobs of the snapshot, sorted by namespace and name.
func Build(s *snapshot.Snapshot) []*evidence.Job {
	ix := newIndex(s)
	var jobs []*evidence.Job
	for _, o := range s.Objects {
		for _, a := range adapters {
			if !a.matches(o) {
				continue
			}
			// A RayCluster owned by a RayJob is part of that job.
			if o.Kind == "RayCluster" && ix.ownedByKind(o, "RayJob") {
				continue
			}
			jobs = append(jobs, ix.buildJob(o, a))
			break
		}
	}
	sort.SliceStable(jobs, func(a, b int) bool {
		if jobs[a].Namespace != jobs[b].Namespace {
			return jobs[a].Namespace < jobs[b].Namespace
		}
		if jobs[a].Name != jobs[b].Name {
			return jobs[a].Name < jobs[b].Name
		}
		return jobs[a].Kind < jobs[b].Kind
	})
	return jobs
}

// index is the snapshot's objects looked up the ways adapters need.
type index struct {
	snap     *snapshot.Snapshot
	byUID    map[string]*snapshot.Object
	byKey    map[string]*snapshot.Object
	pods     []*snapshot.Object
	events   []*snapshot.Object
	nodes    map[string]*snapshot.Object
	quotas   map[string][]*snapshot.Object
	gates    []*snapshot.Object
	children []*snapshot.Object
	newest   time.Time
	// chains memoises ownerChain: every job asks about every pod.
	chains map[*snapshot.Object][]*snapshot.Object
}

func newIndex(s *snapshot.Snapshot) *index {
	ix := &index{
		snap: s, byUID: map[string]*snapshot.Object{}, byKey: map[string]*snapshot.Object{},
		nodes: map[string]*snapshot.Object{}, quotas: map[string][]*snapshot.Object{},
		chains: map[*snapshot.Object][]*snapshot.Object{},
	}
	for _, o := range s.Objects {
		if o.UID != "" {
			ix.byUID[o.UID] = o
		}
		ix.byKey[o.Key()] = o
		switch {
		case o.Kind == "Pod" && o.Group == "":
			ix.pods = append(ix.pods, o)
		case o.Kind == "Event" && (o.Group == "" || o.Group == "events.k8s.io"):
			ix.events = append(ix.events, o)
		case o.Kind == "Node" && o.Group == "":
			ix.nodes[o.Name] = o
		case o.Kind == "ResourceQuota" && o.Group == "":
			ix.quotas[o.Namespace] = append(ix.quotas[o.Namespace], o)
		case o.Kind == "PodGroup" || (o.Kind == "Workload" && strings.HasPrefix(o.Group, "kueue.")):
			ix.gates = append(ix.gates, o)
		case o.Kind == "JobSet" || (o.Kind == "Job" && o.Group == "batch") || o.Kind == "RayCluster":
			ix.children = append(ix.children, o)
		}
		ix.noteTimes(o.Raw)
	}
	return ix
}

// noteTimes records the newest timestamp seen anywhere, which stands for
// "now" when snapshot.yaml has no collectedAt.
func (ix *index) noteTimes(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && (strings.HasSuffix(k, "Time") || strings.HasSuffix(k, "Timestamp") || strings.HasSuffix(k, "At")) {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.After(ix.newest) {
					ix.newest = t
				}
				continue
			}
			ix.noteTimes(val)
		}
	case []any:
		for _, val := range x {
			ix.noteTimes(val)
		}
	}
}

// ownerChain returns the owners of o, nearest first, following
// ownerReferences through objects present in the snapshot.
func (ix *index) ownerChain(o *snapshot.Object) []*snapshot.Object {
	if c, ok := ix.chains[o]; ok {
		return c
	}
	c := ix.walkOwners(o)
	ix.chains[o] = c
	return c
}

func (ix *index) walkOwners(o *snapshot.Object) []*snapshot.Object {
	var chain []*snapshot.Object
	seen := map[string]bool{}
	cur := o
	for depth := 0; depth < 6; depth++ {
		var next *snapshot.Object
		for _, r := range cur.Owners {
			if p := ix.byUID[r.UID]; p != nil && !seen[p.UID] {
				next = p
				break
			}
			// Owners may be missing their uid in hand-written snapshots.
			if p := ix.byKey[r.Kind+"/"+cur.Namespace+"/"+r.Name]; p != nil && !seen[p.Key()] {
				next = p
				break
			}
		}
		if next == nil {
			break
		}
		seen[next.UID] = true
		seen[next.Key()] = true
		chain = append(chain, next)
		cur = next
	}
	return chain
}

// ownedBy reports whether job is o's owner, directly or through owners.
func (ix *index) ownedBy(o, job *snapshot.Object) bool {
	for _, r := range o.Owners {
		if (r.UID != "" && r.UID == job.UID) || (r.Kind == job.Kind && r.Name == job.Name && o.Namespace == job.Namespace) {
			return true
		}
	}
	for _, p := range ix.ownerChain(o) {
		if p == job {
			return true
		}
	}
	return false
}

func (ix *index) ownedByKind(o *snapshot.Object, kind string) bool {
	for _, r := range o.Owners {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

// Labels that name the job a pod belongs to, by the operators that set them.
var jobNameLabels = map[string][]string{
	"kubeflow": {"training.kubeflow.org/job-name", "pytorch-job-name", "tf-job-name", "mpi-job-name", "job-name"},
	"TrainJob": {"trainer.kubeflow.org/trainjob-name", "jobset.sigs.k8s.io/jobset-name"},
	"Ray":      {"ray.io/cluster"},
	"T9k":      {"tensorstack.dev/owner-name", "batch.tensorstack.dev/job-name"},
}

// podsOf returns the pods of a job: owned by it (through any chain of
// owners present in the snapshot) or carrying one of the label keys with
// the job's name.
func (ix *index) podsOf(job *snapshot.Object, labelKeys []string, labelValue string) []*snapshot.Object {
	var out []*snapshot.Object
	for _, p := range ix.pods {
		if p.Namespace != job.Namespace {
			continue
		}
		if ix.ownedBy(p, job) {
			out = append(out, p)
			continue
		}
		// A pod with a controller owner that is in the snapshot but not
		// this job belongs to something else (e.g. a batch Job named like
		// a Kubeflow job via the generic job-name label).
		if len(p.Owners) > 0 && len(ix.ownerChain(p)) > 0 {
			continue
		}
		for _, k := range labelKeys {
			if v, ok := p.Labels[k]; ok && v == labelValue {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// childrenOf returns the workload objects beneath the job.
func (ix *index) childrenOf(job *snapshot.Object) []*snapshot.Object {
	var out []*snapshot.Object
	for _, c := range ix.children {
		if c.Namespace == job.Namespace && c != job && ix.ownedBy(c, job) {
			out = append(out, c)
		}
	}
	return out
}

// gatesOf returns pod groups and Kueue workloads of the job.
func (ix *index) gatesOf(job *snapshot.Object, pods []*snapshot.Object) []*snapshot.Object {
	groupNames := map[string]bool{}
	for _, p := range pods {
		for _, k := range []string{"scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name", "scheduling.x-k8s.io/pod-group", "tensorstack.dev/podgroup"} {
			if v := p.Annotations[k]; v != "" {
				groupNames[v] = true
			}
			if v := p.Labels[k]; v != "" {
				groupNames[v] = true
			}
		}
	}
	var out []*snapshot.Object
	for _, g := range ix.gates {
		if g.Namespace != job.Namespace {
			continue
		}
		if ix.ownedBy(g, job) || groupNames[g.Name] || (g.Kind == "PodGroup" && g.Name == job.Name) {
			out = append(out, g)
		}
	}
	return out
}

// now is the snapshot time.
func (ix *index) now() string {
	if ix.snap.CollectedAt != "" {
		return ix.snap.CollectedAt
	}
	if ix.newest.IsZero() {
		return ""
	}
	return ix.newest.UTC().Format(time.RFC3339)
}
