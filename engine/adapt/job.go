package adapt

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/kinds"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// buildJob makes the evidence record of one job object.
func (ix *index) buildJob(o *snapshot.Object, a kindAdapter) *evidence.Job {
	job := &evidence.Job{
		Ref: evidence.Ref{
			Kind: o.Kind, APIVersion: o.APIVersion, Namespace: o.Namespace, Name: o.Name, UID: o.UID,
		},
		Labels:      o.Labels,
		Annotations: o.Annotations,
		CreatedAt:   snapshot.Str(o.Raw, "metadata", "creationTimestamp"),
		Status:      evidence.KindStatus{Conditions: conditions(o.Raw, "status", "conditions")},
		Now:         ix.now(),
		Notes:       append([]string(nil), ix.snap.Notes...),
		Pods:        []evidence.Pod{},
		Events:      []evidence.Event{},
		Nodes:       []evidence.Node{},
		Replicas:    []evidence.ReplicaGroup{},
	}
	job.Status.StartTime = snapshot.Str(o.Raw, "status", "startTime")
	job.Status.CompletionTime = snapshot.Str(o.Raw, "status", "completionTime")
	a.build(o, ix, job)

	owners, workloads := ix.related(o)
	pods := ix.podsOf(o, owners)
	sort.Slice(pods, func(a, b int) bool { return pods[a].Name < pods[b].Name })
	have := map[string]bool{}
	for _, p := range pods {
		job.Pods = append(job.Pods, podEvidence(p, job))
		have[p.Name], have[p.UID] = true, true
	}
	if ps, ok := a.(podSupplier); ok {
		job.Pods = append(job.Pods, ps.extraPods(o, have)...)
	}
	for _, c := range workloads {
		job.Children = append(job.Children, childEvidence(c))
	}
	gates := ix.gatesOf(o, owners, pods)
	for _, g := range gates {
		job.Admission = append(job.Admission, gateEvidence(g))
	}
	job.Queues = ix.queuesOf(o, owners, gates, pods)
	for _, q := range ix.quotas[o.Namespace] {
		job.Quotas = append(job.Quotas, evidence.Quota{
			Name: q.Name, Hard: snapshot.StrMap(q.Raw, "status", "hard"), Used: snapshot.StrMap(q.Raw, "status", "used"),
		})
		if job.Quotas[len(job.Quotas)-1].Hard == nil {
			job.Quotas[len(job.Quotas)-1].Hard = snapshot.StrMap(q.Raw, "spec", "hard")
		}
	}
	job.Nodes = ix.nodesOf(job.Pods)
	job.Events = ix.eventsOf(job)
	countReplicas(job)
	if job.Phase == "" {
		job.Phase = phaseFromPods(job)
	}
	return job
}

// podSupplier is implemented by kinds whose status describes pods that
// may no longer exist as objects.
type podSupplier interface {
	extraPods(o *snapshot.Object, have map[string]bool) []evidence.Pod
}

func conditions(m map[string]any, path ...string) []evidence.Condition {
	out := []evidence.Condition{}
	for _, c := range snapshot.Maps(m, path...) {
		out = append(out, evidence.Condition{
			Type: snapshot.Str(c, "type"), Status: snapshot.Str(c, "status"),
			Reason: snapshot.Str(c, "reason"), Message: snapshot.Str(c, "message"),
			LastTransitionTime: firstNonEmpty(snapshot.Str(c, "lastTransitionTime"), snapshot.Str(c, "lastUpdateTime"), snapshot.Str(c, "lastProbeTime"), snapshot.Str(c, "lastHeartbeatTime")),
		})
	}
	return out
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// replicaLabels and indexLabels name a pod's replica type and index, by
// operator.
var (
	replicaLabels = kinds.ReplicaTypeLabels()
	indexLabels   = kinds.ReplicaIndexLabels()
)

// replicaType names the pod's replica group, matching the job's group
// names case-insensitively; it falls back to the pod name
// (<job>-<type>-<index>) as TensorStack and older operators name pods.
func replicaType(p *snapshot.Object, job *evidence.Job) string {
	match := func(v string) string {
		for _, g := range job.Replicas {
			if strings.EqualFold(g.Type, v) {
				return g.Type
			}
		}
		return ""
	}
	if p.Labels["ray.io/node-type"] == "head" {
		if t := match("head"); t != "" {
			return t
		}
	}
	for _, k := range replicaLabels {
		if v := p.Labels[k]; v != "" {
			if t := match(v); t != "" {
				return t
			}
			if t := match(strings.TrimPrefix(v, job.Name+"-")); t != "" {
				return t
			}
		}
	}
	rest := strings.TrimPrefix(p.Name, job.Name+"-")
	for _, g := range job.Replicas {
		if strings.HasPrefix(strings.ToLower(rest), strings.ToLower(g.Type)+"-") {
			return g.Type
		}
	}
	for _, k := range replicaLabels {
		if v := p.Labels[k]; v != "" {
			return v
		}
	}
	if p.Labels["job-name"] != "" && strings.HasSuffix(job.Kind, "RayJob") {
		return "submitter"
	}
	return "pod"
}

func replicaIndex(p *snapshot.Object) *int {
	for _, k := range indexLabels {
		if n, err := strconv.Atoi(p.Labels[k]); err == nil {
			return &n
		}
	}
	// <job>-<type>-<index>
	if i := strings.LastIndex(p.Name, "-"); i >= 0 {
		if n, err := strconv.Atoi(p.Name[i+1:]); err == nil {
			return &n
		}
	}
	return nil
}

func podEvidence(o *snapshot.Object, job *evidence.Job) evidence.Pod {
	m := o.Raw
	p := evidence.Pod{
		Name: o.Name, Namespace: o.Namespace, UID: o.UID,
		ReplicaType:  replicaType(o, job),
		ReplicaIndex: replicaIndex(o),
		NodeName:     snapshot.Str(m, "spec", "nodeName"),
		PodIP:        snapshot.Str(m, "status", "podIP"),
		Phase:        snapshot.Str(m, "status", "phase"),
		Reason:       snapshot.Str(m, "status", "reason"),
		Message:      snapshot.Str(m, "status", "message"),
		CreatedAt:    snapshot.Str(m, "metadata", "creationTimestamp"),
		StartTime:    snapshot.Str(m, "status", "startTime"),
		DeletedAt:    snapshot.Str(m, "metadata", "deletionTimestamp"),
		Conditions:   conditions(m, "status", "conditions"),
	}
	if p.Phase == "" {
		p.Phase = "Unknown"
	}
	specs := containerSpecs(snapshot.Maps(m, "spec", "containers"))
	p.Containers = containers(specs, snapshot.Maps(m, "status", "containerStatuses"))
	if init := snapshot.Maps(m, "spec", "initContainers"); len(init) > 0 {
		p.InitContainers = containers(containerSpecs(init), snapshot.Maps(m, "status", "initContainerStatuses"))
	}
	return p
}

func containers(specs []evidence.ContainerSpec, statuses []map[string]any) []evidence.Container {
	byName := map[string]map[string]any{}
	for _, s := range statuses {
		byName[snapshot.Str(s, "name")] = s
	}
	out := []evidence.Container{}
	seen := map[string]bool{}
	for _, sp := range specs {
		out = append(out, containerEvidence(sp, byName[sp.Name]))
		seen[sp.Name] = true
	}
	// Statuses without a spec (hand-trimmed snapshots) still count.
	for _, s := range statuses {
		if n := snapshot.Str(s, "name"); !seen[n] {
			out = append(out, containerEvidence(evidence.ContainerSpec{Name: n, Image: snapshot.Str(s, "image")}, s))
		}
	}
	return out
}

func containerEvidence(sp evidence.ContainerSpec, st map[string]any) evidence.Container {
	c := evidence.Container{ContainerSpec: sp}
	if st == nil {
		return c
	}
	c.Ready = snapshot.Bool(st, "ready")
	c.RestartCount, _ = snapshot.Int(st, "restartCount")
	c.State = containerState(snapshot.Map(st, "state"))
	c.LastState = containerState(snapshot.Map(st, "lastState"))
	return c
}

func containerState(m map[string]any) evidence.ContainerState {
	for _, s := range []string{"terminated", "waiting", "running"} {
		sm := snapshot.Map(m, s)
		if sm == nil {
			continue
		}
		cs := evidence.ContainerState{
			State: s, Reason: snapshot.Str(sm, "reason"), Message: snapshot.Str(sm, "message"),
			StartedAt: snapshot.Str(sm, "startedAt"), FinishedAt: snapshot.Str(sm, "finishedAt"),
		}
		if s == "terminated" {
			if n, ok := snapshot.Int(sm, "exitCode"); ok {
				cs.ExitCode = &n
			}
			cs.Signal, _ = snapshot.Int(sm, "signal")
		}
		return cs
	}
	return evidence.ContainerState{}
}

func containerSpecs(ms []map[string]any) []evidence.ContainerSpec {
	out := []evidence.ContainerSpec{}
	for _, m := range ms {
		c := evidence.ContainerSpec{
			Name: snapshot.Str(m, "name"), Image: snapshot.Str(m, "image"),
			Requests: snapshot.StrMap(m, "resources", "requests"),
			Limits:   snapshot.StrMap(m, "resources", "limits"),
		}
		for _, x := range snapshot.Slice(m, "command") {
			if s, ok := x.(string); ok {
				c.Command = append(c.Command, s)
			}
		}
		for _, x := range snapshot.Slice(m, "args") {
			if s, ok := x.(string); ok {
				c.Args = append(c.Args, s)
			}
		}
		for _, e := range snapshot.Maps(m, "env") {
			if c.Env == nil {
				c.Env = map[string]string{}
			}
			if snapshot.Get(e, "valueFrom") != nil {
				c.Env[snapshot.Str(e, "name")] = "(from " + valueFromKind(e) + ")"
				continue
			}
			c.Env[snapshot.Str(e, "name")] = snapshot.Str(e, "value")
		}
		out = append(out, c)
	}
	return out
}

func valueFromKind(e map[string]any) string {
	for k := range snapshot.Map(e, "valueFrom") {
		return k
	}
	return "reference"
}

// podTemplate extracts the spec facts of a pod template (spec.template).
func podTemplate(tpl map[string]any) evidence.PodTemplate {
	spec := snapshot.Map(tpl, "spec")
	t := evidence.PodTemplate{
		Containers:    containerSpecs(snapshot.Maps(spec, "containers")),
		NodeSelector:  snapshot.StrMap(spec, "nodeSelector"),
		HasAffinity:   snapshot.Map(spec, "affinity") != nil,
		HostIPC:       snapshot.Bool(spec, "hostIPC"),
		SchedulerName: snapshot.Str(spec, "schedulerName"),
	}
	for _, tol := range snapshot.Maps(spec, "tolerations") {
		t.Tolerations = append(t.Tolerations, evidence.Toleration{
			Key: snapshot.Str(tol, "key"), Operator: snapshot.Str(tol, "operator"),
			Value: snapshot.Str(tol, "value"), Effect: snapshot.Str(tol, "effect"),
		})
	}
	for _, c := range t.Containers {
		t.GPURequest += gpuCount(c.Requests)
		t.GPULimit += gpuCount(c.Limits)
		t.EFA += quantity(c.Limits["vpc.amazonaws.com/efa"])
		for k, v := range c.Limits {
			if strings.HasPrefix(k, "rdma/") || strings.HasPrefix(k, "nvidia.com/hostdev") || strings.HasPrefix(k, "nvidia.com/rdma") {
				t.RDMA += quantity(v)
			}
		}
	}
	if t.GPURequest == 0 {
		t.GPURequest = t.GPULimit
	}
	// A memory-backed emptyDir mounted at /dev/shm.
	memVols := map[string]string{}
	for _, v := range snapshot.Maps(spec, "volumes") {
		if ed := snapshot.Map(v, "emptyDir"); ed != nil && snapshot.Str(ed, "medium") == "Memory" {
			memVols[snapshot.Str(v, "name")] = snapshot.Str(ed, "sizeLimit")
		}
	}
	for _, c := range snapshot.Maps(spec, "containers") {
		for _, vm := range snapshot.Maps(c, "volumeMounts") {
			if size, ok := memVols[snapshot.Str(vm, "name")]; ok && strings.TrimSuffix(snapshot.Str(vm, "mountPath"), "/") == "/dev/shm" {
				t.ShmMemory, t.ShmSizeLimit = true, size
			}
		}
	}
	return t
}

func gpuCount(res map[string]string) int64 {
	var n int64
	for k, v := range res {
		if k == "nvidia.com/gpu" || k == "amd.com/gpu" || strings.HasPrefix(k, "nvidia.com/mig-") {
			n += quantity(v)
		}
	}
	return n
}

// quantity reads a whole-number resource quantity ("8"); others count 0.
func quantity(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func childEvidence(o *snapshot.Object) evidence.Child {
	c := evidence.Child{
		Ref:        evidence.Ref{Kind: o.Kind, APIVersion: o.APIVersion, Namespace: o.Namespace, Name: o.Name, UID: o.UID},
		Conditions: conditions(o.Raw, "status", "conditions"),
		Phase:      firstNonEmpty(snapshot.Str(o.Raw, "status", "phase"), snapshot.Str(o.Raw, "status", "state"), snapshot.Str(o.Raw, "status", "terminalState")),
	}
	counts := map[string]int{}
	for _, k := range []string{"active", "succeeded", "failed", "ready", "readyWorkerReplicas", "availableWorkerReplicas", "desiredWorkerReplicas", "restarts"} {
		if n, ok := snapshot.Int(o.Raw, "status", k); ok {
			counts[k] = n
		}
	}
	if len(counts) > 0 {
		c.Counts = counts
	}
	return c
}

func gateEvidence(o *snapshot.Object) evidence.Admission {
	g := evidence.Admission{
		Ref:        evidence.Ref{Kind: o.Kind, APIVersion: o.APIVersion, Namespace: o.Namespace, Name: o.Name, UID: o.UID},
		Phase:      snapshot.Str(o.Raw, "status", "phase"),
		Queue:      firstNonEmpty(snapshot.Str(o.Raw, "spec", "queue"), snapshot.Str(o.Raw, "spec", "queueName")),
		Conditions: conditions(o.Raw, "status", "conditions"),
	}
	if n, ok := snapshot.Int(o.Raw, "spec", "minMember"); ok {
		g.MinMember = &n
	}
	g.MinResources = snapshot.StrMap(o.Raw, "spec", "minResources")
	g.ClusterQueue = snapshot.Str(o.Raw, "status", "admission", "clusterQueue")
	if a, ok := snapshot.Get(o.Raw, "spec", "active").(bool); ok {
		g.Active = &a
	}
	g.Counts = counts(o.Raw, []string{"status"}, "pending", "running", "succeeded", "failed", "unknown")
	g.CreatedAt = snapshot.Str(o.Raw, "metadata", "creationTimestamp")
	return g
}

// nodesOf returns the nodes the pods sit on.
func (ix *index) nodesOf(pods []evidence.Pod) []evidence.Node {
	names := map[string]bool{}
	for _, p := range pods {
		if p.NodeName != "" {
			names[p.NodeName] = true
		}
	}
	out := []evidence.Node{}
	for _, n := range sortedKeys(names) {
		o := ix.nodes[n]
		if o == nil {
			continue
		}
		node := evidence.Node{
			Name: n, Conditions: conditions(o.Raw, "status", "conditions"),
			Unschedulable: snapshot.Bool(o.Raw, "spec", "unschedulable"),
			Labels:        o.Labels,
			Capacity:      snapshot.StrMap(o.Raw, "status", "capacity"),
			Allocatable:   snapshot.StrMap(o.Raw, "status", "allocatable"),
			Ready:         "Unknown",
		}
		for _, c := range node.Conditions {
			if c.Type == "Ready" {
				node.Ready = c.Status
			}
		}
		for _, t := range snapshot.Maps(o.Raw, "spec", "taints") {
			node.Taints = append(node.Taints, evidence.Taint{
				Key: snapshot.Str(t, "key"), Value: snapshot.Str(t, "value"),
				Effect: snapshot.Str(t, "effect"), TimeAdded: snapshot.Str(t, "timeAdded"),
			})
		}
		node.GPU = gpuCount(node.Capacity)
		node.EFA = quantity(node.Capacity["vpc.amazonaws.com/efa"])
		out = append(out, node)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// countReplicas fills created and per-state counts of each replica group
// from the pods, adding groups for pods of types the spec did not name.
func countReplicas(job *evidence.Job) {
	idx := map[string]int{}
	for i, g := range job.Replicas {
		idx[g.Type] = i
	}
	for _, p := range job.Pods {
		i, ok := idx[p.ReplicaType]
		if !ok {
			job.Replicas = append(job.Replicas, evidence.ReplicaGroup{Type: p.ReplicaType})
			i = len(job.Replicas) - 1
			idx[p.ReplicaType] = i
		}
		g := &job.Replicas[i]
		g.Created++
		switch p.Phase {
		case "Pending":
			g.Pending++
		case "Running":
			g.Running++
		case "Succeeded":
			g.Succeeded++
		case "Failed":
			g.Failed++
		default:
			g.Unknown++
		}
		for _, c := range p.Containers {
			g.Restarts += c.RestartCount
		}
	}
}

// phaseFromPods is the fallback phase when the kind's status says nothing.
func phaseFromPods(job *evidence.Job) string {
	if len(job.Pods) == 0 {
		return evidence.PhasePending
	}
	var running, failed, succeeded int
	for _, p := range job.Pods {
		switch p.Phase {
		case "Running":
			running++
		case "Failed":
			failed++
		case "Succeeded":
			succeeded++
		}
	}
	switch {
	case failed > 0 && running == 0:
		return evidence.PhaseFailed
	case running > 0:
		return evidence.PhaseRunning
	case succeeded == len(job.Pods):
		return evidence.PhaseSucceeded
	}
	return evidence.PhasePending
}

// lastTrueCondition returns the most recent condition with status True.
func lastTrueCondition(cs []evidence.Condition) *evidence.Condition {
	var best *evidence.Condition
	var bestT time.Time
	for i := range cs {
		c := &cs[i]
		if c.Status != "True" {
			continue
		}
		t, _ := time.Parse(time.RFC3339Nano, c.LastTransitionTime)
		if best == nil || !t.Before(bestT) {
			best, bestT = c, t
		}
	}
	return best
}

func conditionTrue(cs []evidence.Condition, typ string) *evidence.Condition {
	for i := range cs {
		if cs[i].Type == typ && cs[i].Status == "True" {
			return &cs[i]
		}
	}
	return nil
}

func intPtr(m map[string]any, path ...string) *int {
	if n, ok := snapshot.Int(m, path...); ok {
		return &n
	}
	return nil
}
