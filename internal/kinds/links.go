package kinds

// Object is the part of a Kubernetes object the links read. The collector
// fills it from what the API server returns, the adapters from a snapshot.
type Object struct {
	Group, Kind, Namespace, Name, UID string
	Labels, Annotations               map[string]string
	Owners                            []Owner
	// Raw is the whole object, for fields such as a RayJob's
	// status.rayClusterName.
	Raw map[string]any
}

// Owner is an owner reference.
type Owner struct{ Kind, Name, UID string }

// Info returns the registry entry of o's kind, or nil.
func (o *Object) Info() *Kind { return Lookup(o.Group, o.Kind) }

// OwnedBy reports whether o has an owner reference to parent, by uid or
// by kind and name. Owner references name no namespace: the owner is
// always in o's. Kind and name suffice because a uid is not always
// usable: hand-written snapshots leave it out, and objects loaded into a
// cluster get new ones while their references keep the old.
func (o *Object) OwnedBy(parent *Object) bool {
	if o.Namespace != parent.Namespace {
		return false
	}
	for _, r := range o.Owners {
		if (r.UID != "" && r.UID == parent.UID) || (r.Kind == parent.Kind && r.Name == parent.Name) {
			return true
		}
	}
	return false
}

// ownedByAny reports whether o is owned by one of parents.
func (o *Object) ownedByAny(parents []*Object) bool {
	for _, p := range parents {
		if o.OwnedBy(p) {
			return true
		}
	}
	return false
}

// linked reports whether workload w meets link l to parent p.
func linked(w *Object, l Link, p *Object) bool {
	if p.Kind != l.Parent || p.Namespace != w.Namespace {
		return false
	}
	switch l.By {
	case SameName:
		return w.Name == p.Name
	case ChildLabel:
		return w.Labels[l.Key] == p.Name
	case ParentField:
		return str(p.Raw, l.Path...) == w.Name
	}
	return false
}

// WorkloadOf reports whether w is a workload of one of parents: owned by
// it, or linked to it the way the operator names its workloads.
func WorkloadOf(w *Object, parents []*Object) bool {
	k := w.Info()
	if k == nil || k.Role != Workload {
		return false
	}
	if w.ownedByAny(parents) {
		return true
	}
	for _, l := range k.Parents {
		for _, p := range parents {
			if linked(w, l, p) {
				return true
			}
		}
	}
	return false
}

// Workloads returns the candidates that are workloads of jobs, directly or
// through other workloads (a TrainJob's JobSet, then the JobSet's batch
// Jobs), in the candidates' order.
func Workloads(jobs, candidates []*Object) []*Object {
	parents := append([]*Object(nil), jobs...)
	in := map[*Object]bool{}
	for _, j := range jobs {
		in[j] = true
	}
	for changed := true; changed; {
		changed = false
		for _, c := range candidates {
			if !in[c] && WorkloadOf(c, parents) {
				in[c] = true
				parents = append(parents, c)
				changed = true
			}
		}
	}
	var out []*Object
	for _, c := range candidates {
		if in[c] {
			out = append(out, c)
		}
	}
	return out
}

// Claimed reports whether a Standalone workload belongs to something else:
// it has an owner reference to one of its parent kinds (present or not),
// or one of candidates is its parent by a link. A RayCluster that a RayJob
// created is that job's workload whether or not KubeRay set the reference.
func Claimed(w *Object, candidates []*Object) bool {
	k := w.Info()
	if k == nil {
		return false
	}
	for _, l := range k.Parents {
		for _, r := range w.Owners {
			if r.Kind == l.Parent {
				return true
			}
		}
		for _, p := range candidates {
			if linked(w, l, p) {
				return true
			}
		}
	}
	return false
}

// IsJob reports whether o is a training job: a Job kind, or a Standalone
// workload that none of candidates claims.
func IsJob(o *Object, candidates []*Object) bool {
	k := o.Info()
	switch {
	case k == nil:
		return false
	case k.Role == Job:
		return true
	case k.Standalone:
		return !Claimed(o, candidates)
	}
	return false
}

// PodLabelValue returns the value that pods of o carry in its kind's
// PodLabels: its name, or the field the kind names (a RayJob's pods carry
// its RayCluster's name).
func PodLabelValue(o *Object) string {
	if k := o.Info(); k != nil && len(k.PodLabelField) > 0 {
		if v := str(o.Raw, k.PodLabelField...); v != "" {
			return v
		}
	}
	return o.Name
}

// PodOf reports whether pod belongs to one of owners (a job and its
// workloads): by an owner reference, or by one of the owner kind's pod
// labels. Labels are a fallback for operators that set no owner
// references; a pod whose owner is known to be something else must not be
// claimed by a label (batch Jobs label their pods job-name too), so the
// caller passes byLabel false when one of the pod's owners is present.
func PodOf(pod *Object, owners []*Object, byLabel bool) bool {
	if pod.ownedByAny(owners) {
		return true
	}
	if !byLabel {
		return false
	}
	for _, o := range owners {
		k := o.Info()
		if k == nil || o.Namespace != pod.Namespace {
			continue
		}
		v := PodLabelValue(o)
		for _, key := range k.PodLabels {
			if pod.Labels[key] == v && v != "" {
				return true
			}
		}
	}
	return false
}

// NamesGate reports whether pod names gate g by one of the label or
// annotation keys of g's kind.
func NamesGate(pod, g *Object) bool {
	k := g.Info()
	if k == nil || pod.Namespace != g.Namespace {
		return false
	}
	for _, key := range k.GroupKeys {
		if pod.Labels[key] == g.Name || pod.Annotations[key] == g.Name {
			return true
		}
	}
	return false
}

// GateOf reports whether gate g concerns one of jobs: it is owned by one
// of owners (the jobs and their workloads), one of pods (theirs) names it,
// or its kind is named after the job and one of jobs has its name.
func GateOf(g *Object, jobs, owners, pods []*Object) bool {
	k := g.Info()
	if k == nil || k.Role != Gate {
		return false
	}
	if g.ownedByAny(owners) {
		return true
	}
	for _, p := range pods {
		if NamesGate(p, g) {
			return true
		}
	}
	if k.NamedAfterJob {
		for _, j := range jobs {
			if j.Namespace == g.Namespace && j.Name == g.Name {
				return true
			}
		}
	}
	return false
}

// str returns a nested string field, or "".
func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[p]
	}
	s, _ := cur.(string)
	return s
}

// NamesQueue reports whether o names queue q in one of the places q's
// kind lists: a LocalQueue is named by a job's queue-name label or its
// Workload's spec.queueName, a ClusterQueue by that LocalQueue, a Volcano
// or TensorStack Queue by a pod group, a job or a pod. A namespaced queue
// is only named from its own namespace.
func NamesQueue(o, q *Object) bool {
	k := q.Info()
	if k == nil || k.Role != Queue || q.Name == "" {
		return false
	}
	if !k.ClusterScoped && o.Namespace != q.Namespace {
		return false
	}
	for _, r := range k.NamedBy {
		if r.Group != "*" && (r.Group != o.Group || (r.Kind != "" && r.Kind != o.Kind)) {
			continue
		}
		if len(r.Path) > 0 && str(o.Raw, r.Path...) == q.Name {
			return true
		}
		if r.Key != "" && (o.Labels[r.Key] == q.Name || o.Annotations[r.Key] == q.Name) {
			return true
		}
	}
	return false
}

// QueuesOf returns the candidates that refs name, directly or through
// another queue (a job's LocalQueue, then that LocalQueue's ClusterQueue),
// in the candidates' order.
func QueuesOf(refs, candidates []*Object) []*Object {
	named := append([]*Object(nil), refs...)
	in := map[*Object]bool{}
	for changed := true; changed; {
		changed = false
		for _, c := range candidates {
			if in[c] {
				continue
			}
			for _, r := range named {
				if NamesQueue(r, c) {
					in[c] = true
					named = append(named, c)
					changed = true
					break
				}
			}
		}
	}
	var out []*Object
	for _, c := range candidates {
		if in[c] {
			out = append(out, c)
		}
	}
	return out
}
