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
	"github.com/traindoc/traindoc/internal/kinds"
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
// Which objects are jobs, and which pods, workloads and gates belong to
// each, is decided by the kind registry the live collector uses too.
func Build(s *snapshot.Snapshot) []*evidence.Job {
	ix := newIndex(s)
	var jobs []*evidence.Job
	for _, o := range s.Objects {
		// A RayCluster that a RayJob created is part of that job.
		if !kinds.IsJob(ix.kobj(o), ix.kjobs) {
			continue
		}
		for _, a := range adapters {
			if a.matches(o) {
				jobs = append(jobs, ix.buildJob(o, a))
				break
			}
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
	snap   *snapshot.Snapshot
	byUID  map[string]*snapshot.Object
	byKey  map[string]*snapshot.Object
	pods   []*snapshot.Object
	events []*snapshot.Object
	// eventsAbout holds every event read once, by the object it is about
	// (eventKey), so that a job looks up its own instead of reading all of
	// a snapshot's events: a fleet of jobs has events by the hundred
	// thousand.
	eventsAbout map[string][]indexedEvent
	nodes       map[string]*snapshot.Object
	quotas      map[string][]*snapshot.Object
	gates       []*snapshot.Object
	queues      []*snapshot.Object
	children    []*snapshot.Object
	newest      time.Time
	// chains memoises ownerChain: every job asks about every pod.
	chains map[*snapshot.Object][]*snapshot.Object
	// kobjs holds the registry's view of each object; kjobs those of the
	// Job kinds, which may claim a Standalone workload.
	kobjs map[*snapshot.Object]*kinds.Object
	kjobs []*kinds.Object
}

func newIndex(s *snapshot.Snapshot) *index {
	ix := &index{
		snap: s, byUID: map[string]*snapshot.Object{}, byKey: map[string]*snapshot.Object{},
		nodes: map[string]*snapshot.Object{}, quotas: map[string][]*snapshot.Object{},
		chains: map[*snapshot.Object][]*snapshot.Object{},
		kobjs:  map[*snapshot.Object]*kinds.Object{},
	}
	for _, o := range s.Objects {
		if o.UID != "" {
			ix.byUID[o.UID] = o
		}
		ix.byKey[o.Key()] = o
		role := kinds.Role(0)
		if k := kinds.Lookup(o.Group, o.Kind); k != nil {
			role = k.Role
		}
		switch {
		case o.Kind == "Pod" && o.Group == "":
			ix.pods = append(ix.pods, o)
		case o.Kind == "Event" && (o.Group == "" || o.Group == "events.k8s.io"):
			ix.events = append(ix.events, o)
		case o.Kind == "Node" && o.Group == "":
			ix.nodes[o.Name] = o
		case o.Kind == "ResourceQuota" && o.Group == "":
			ix.quotas[o.Namespace] = append(ix.quotas[o.Namespace], o)
		case role == kinds.Gate:
			ix.gates = append(ix.gates, o)
		case role == kinds.Queue:
			ix.queues = append(ix.queues, o)
		case role == kinds.Workload:
			ix.children = append(ix.children, o)
		case role == kinds.Job:
			ix.kjobs = append(ix.kjobs, ix.kobj(o))
		}
		ix.noteTimes(o.Raw)
	}
	ix.eventsAbout = make(map[string][]indexedEvent, len(ix.events))
	for i, o := range ix.events {
		e := readEvent(o)
		k := eventKey(e.Object.Kind, e.Object.Name)
		ix.eventsAbout[k] = append(ix.eventsAbout[k], indexedEvent{seq: i, e: e})
	}
	return ix
}

// replicaPath is where the registry says o's kind keeps its replica specs.
func replicaPath(o *snapshot.Object) []string {
	if k := kinds.Lookup(o.Group, o.Kind); k != nil {
		return k.Replicas.Path
	}
	return nil
}

// kobj returns the registry's view of o.
func (ix *index) kobj(o *snapshot.Object) *kinds.Object {
	if k, ok := ix.kobjs[o]; ok {
		return k
	}
	k := &kinds.Object{
		Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, UID: o.UID,
		Labels: o.Labels, Annotations: o.Annotations, Raw: o.Raw,
	}
	for _, r := range o.Owners {
		k.Owners = append(k.Owners, kinds.Owner{Kind: r.Kind, Name: r.Name, UID: r.UID})
	}
	ix.kobjs[o] = k
	return k
}

func (ix *index) kobjList(objs []*snapshot.Object) []*kinds.Object {
	out := make([]*kinds.Object, len(objs))
	for i, o := range objs {
		out[i] = ix.kobj(o)
	}
	return out
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

// related returns the job and the workloads beneath it, by owner
// references through any objects in the snapshot or by the links the
// registry knows; pods and gates belong to a job through any of them.
func (ix *index) related(job *snapshot.Object) (owners []*kinds.Object, workloads []*snapshot.Object) {
	kjob := ix.kobj(job)
	linked := map[*kinds.Object]bool{}
	for _, w := range kinds.Workloads([]*kinds.Object{kjob}, ix.kobjList(ix.children)) {
		linked[w] = true
	}
	owners = []*kinds.Object{kjob}
	for _, c := range ix.children {
		if c == job || c.Namespace != job.Namespace {
			continue
		}
		if linked[ix.kobj(c)] || ix.ownedBy(c, job) {
			workloads = append(workloads, c)
			owners = append(owners, ix.kobj(c))
		}
	}
	return owners, workloads
}

// podsOf returns the pods of a job: owned by it or its workloads (through
// any chain of owners present in the snapshot) or carrying one of their
// kinds' pod labels. A pod whose owner is in the snapshot but is none of
// these belongs to something else, whatever its labels say.
func (ix *index) podsOf(job *snapshot.Object, owners []*kinds.Object) []*snapshot.Object {
	var out []*snapshot.Object
	for _, p := range ix.pods {
		if p.Namespace != job.Namespace {
			continue
		}
		byLabel := len(p.Owners) == 0 || len(ix.ownerChain(p)) == 0
		if ix.ownedBy(p, job) || kinds.PodOf(ix.kobj(p), owners, byLabel) {
			out = append(out, p)
		}
	}
	return out
}

// gatesOf returns the pod groups and Kueue workloads of the job.
func (ix *index) gatesOf(job *snapshot.Object, owners []*kinds.Object, pods []*snapshot.Object) []*snapshot.Object {
	kjob := []*kinds.Object{ix.kobj(job)}
	kpods := ix.kobjList(pods)
	var out []*snapshot.Object
	for _, g := range ix.gates {
		if g.Namespace != job.Namespace {
			continue
		}
		if ix.ownedBy(g, job) || kinds.GateOf(ix.kobj(g), kjob, owners, kpods) {
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
