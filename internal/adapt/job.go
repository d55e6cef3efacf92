package adapt

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

// buildJob makes the evidence record of one job object.
func (ix *index) buildJob(o *snapshot.Object, a kindAdapter) *evidence.Job {
	job := &evidence.Job{
		Ref: evidence.Ref{
			Kind: o.Kind, APIVersion: o.APIVersion, Namespace: o.Namespace, Name: o.Name, UID: o.UID,
		},
		Labels:      o.Labels,
		Annotations: o.Annotations,
		CreatedAt:   timeString(o.Unstructured().GetCreationTimestamp()),
		Status:      evidence.KindStatus{Conditions: conditions(o.Raw, "status", "conditions")},
		Now:         ix.now(),
		Notes:       append([]string(nil), ix.snap.Notes...),
		Pods:        []evidence.Pod{},
		Events:      []evidence.Event{},
		Nodes:       []evidence.Node{},
		Replicas:    []evidence.ReplicaGroup{},
	}
	job.Status.StartTime = str(o.Raw, "status", "startTime")
	job.Status.CompletionTime = str(o.Raw, "status", "completionTime")
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
		job.Quotas = append(job.Quotas, quotaEvidence(q))
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

// conditions reads the conditions of a custom resource, which follow the
// Kubernetes shape without being one Go type.
func conditions(m map[string]any, path ...string) []evidence.Condition {
	out := []evidence.Condition{}
	for _, c := range objects(m, path...) {
		out = append(out, evidence.Condition{
			Type: str(c, "type"), Status: str(c, "status"),
			Reason: str(c, "reason"), Message: str(c, "message"),
			LastTransitionTime: cmp.Or(str(c, "lastTransitionTime"), str(c, "lastUpdateTime"), str(c, "lastProbeTime"), str(c, "lastHeartbeatTime")),
		})
	}
	return out
}

// quotaEvidence reads a ResourceQuota: what it allows (status.hard, or
// spec.hard before the quota controller has seen it) and what is used, as
// written.
func quotaEvidence(o *snapshot.Object) evidence.Quota {
	hard := resources(o.Raw, "status", "hard")
	if hard == nil {
		hard = resources(o.Raw, "spec", "hard")
	}
	return evidence.Quota{Name: o.Name, Hard: hard, Used: resources(o.Raw, "status", "used")}
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
	pod := o.Pod()
	p := evidence.Pod{
		Name: o.Name, Namespace: o.Namespace, UID: o.UID,
		ReplicaType:  replicaType(o, job),
		ReplicaIndex: replicaIndex(o),
		NodeName:     pod.Spec.NodeName,
		PodIP:        pod.Status.PodIP,
		Phase:        cmp.Or(string(pod.Status.Phase), "Unknown"),
		Reason:       pod.Status.Reason,
		Message:      pod.Status.Message,
		CreatedAt:    timeString(pod.CreationTimestamp),
		StartTime:    timePtrString(pod.Status.StartTime),
		DeletedAt:    timePtrString(pod.DeletionTimestamp),
		Conditions:   []evidence.Condition{},
	}
	for _, c := range pod.Status.Conditions {
		p.Conditions = append(p.Conditions, evidence.Condition{
			Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			LastTransitionTime: cmp.Or(timeString(c.LastTransitionTime), timeString(c.LastProbeTime)),
		})
	}
	p.Containers = containers(containerSpecs(pod.Spec.Containers, objects(o.Raw, "spec", "containers")), pod.Status.ContainerStatuses)
	if len(pod.Spec.InitContainers) > 0 {
		p.InitContainers = containers(containerSpecs(pod.Spec.InitContainers, objects(o.Raw, "spec", "initContainers")), pod.Status.InitContainerStatuses)
	}
	return p
}

func containers(specs []evidence.ContainerSpec, statuses []corev1.ContainerStatus) []evidence.Container {
	byName := map[string]*corev1.ContainerStatus{}
	for i := range statuses {
		byName[statuses[i].Name] = &statuses[i]
	}
	out := []evidence.Container{}
	seen := map[string]bool{}
	for _, sp := range specs {
		out = append(out, containerEvidence(sp, byName[sp.Name]))
		seen[sp.Name] = true
	}
	// Statuses without a spec (hand-trimmed snapshots) still count.
	for i, s := range statuses {
		if !seen[s.Name] {
			out = append(out, containerEvidence(evidence.ContainerSpec{Name: s.Name, Image: s.Image}, &statuses[i]))
		}
	}
	return out
}

func containerEvidence(sp evidence.ContainerSpec, st *corev1.ContainerStatus) evidence.Container {
	c := evidence.Container{ContainerSpec: sp}
	if st == nil {
		return c
	}
	c.Ready = st.Ready
	c.RestartCount = int(st.RestartCount)
	c.State = containerState(st.State)
	c.LastState = containerState(st.LastTerminationState)
	return c
}

func containerState(s corev1.ContainerState) evidence.ContainerState {
	switch {
	case s.Terminated != nil:
		t := s.Terminated
		code := int(t.ExitCode)
		return evidence.ContainerState{
			State: "terminated", Reason: t.Reason, Message: t.Message,
			StartedAt: timeString(t.StartedAt), FinishedAt: timeString(t.FinishedAt),
			ExitCode: &code, Signal: int(t.Signal),
		}
	case s.Waiting != nil:
		return evidence.ContainerState{State: "waiting", Reason: s.Waiting.Reason, Message: s.Waiting.Message}
	case s.Running != nil:
		return evidence.ContainerState{State: "running", StartedAt: timeString(s.Running.StartedAt)}
	}
	return evidence.ContainerState{}
}

// containerSpecs reads containers; raw are the same containers as
// decoded, where their resources are read as written.
func containerSpecs(cs []corev1.Container, raw []map[string]any) []evidence.ContainerSpec {
	rawByName := map[string]map[string]any{}
	for _, r := range raw {
		rawByName[str(r, "name")] = r
	}
	out := []evidence.ContainerSpec{}
	for _, c := range cs {
		spec := evidence.ContainerSpec{
			Name: c.Name, Image: c.Image, Command: c.Command, Args: c.Args,
			Requests: resources(rawByName[c.Name], "resources", "requests"),
			Limits:   resources(rawByName[c.Name], "resources", "limits"),
		}
		for _, e := range c.Env {
			if spec.Env == nil {
				spec.Env = map[string]string{}
			}
			if e.ValueFrom != nil {
				spec.Env[e.Name] = "(from " + valueFromKind(e.ValueFrom) + ")"
				continue
			}
			spec.Env[e.Name] = e.Value
		}
		out = append(out, spec)
	}
	return out
}

// valueFromKind names where an environment variable's value comes from,
// by its field name in the pod spec.
func valueFromKind(v *corev1.EnvVarSource) string {
	switch {
	case v.FieldRef != nil:
		return "fieldRef"
	case v.ResourceFieldRef != nil:
		return "resourceFieldRef"
	case v.ConfigMapKeyRef != nil:
		return "configMapKeyRef"
	case v.SecretKeyRef != nil:
		return "secretKeyRef"
	case v.FileKeyRef != nil:
		return "fileKeyRef"
	}
	return "reference"
}

// podTemplate extracts the spec facts of a custom resource's pod template
// (a core/v1 PodTemplateSpec inside it). A template that does not decode
// is read as far as it goes, with a note on the job saying so.
func podTemplate(job *evidence.Job, tpl map[string]any) evidence.PodTemplate {
	var pt corev1.PodTemplateSpec
	if tpl != nil {
		b, err := json.Marshal(tpl)
		if err == nil {
			err = json.Unmarshal(b, &pt)
		}
		if err != nil {
			job.Notes = append(job.Notes, fmt.Sprintf("%s %s/%s: a pod template not fully read: %v", job.Kind, job.Namespace, job.Name, err))
		}
	}
	return templateFacts(&pt.Spec, objects(tpl, "spec", "containers"))
}

// templateFacts extracts the facts rules need from a pod spec.
func templateFacts(spec *corev1.PodSpec, rawContainers []map[string]any) evidence.PodTemplate {
	t := evidence.PodTemplate{
		Containers:    containerSpecs(spec.Containers, rawContainers),
		NodeSelector:  spec.NodeSelector,
		HasAffinity:   spec.Affinity != nil,
		HostIPC:       spec.HostIPC,
		SchedulerName: spec.SchedulerName,
	}
	if len(t.NodeSelector) == 0 {
		t.NodeSelector = nil
	}
	for _, tol := range spec.Tolerations {
		t.Tolerations = append(t.Tolerations, evidence.Toleration{
			Key: tol.Key, Operator: string(tol.Operator), Value: tol.Value, Effect: string(tol.Effect),
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
	for _, v := range spec.Volumes {
		if ed := v.EmptyDir; ed != nil && ed.Medium == corev1.StorageMediumMemory {
			memVols[v.Name] = ""
			if ed.SizeLimit != nil {
				memVols[v.Name] = ed.SizeLimit.String()
			}
		}
	}
	for _, c := range spec.Containers {
		for _, vm := range c.VolumeMounts {
			if size, ok := memVols[vm.Name]; ok && strings.TrimSuffix(vm.MountPath, "/") == "/dev/shm" {
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
	c := evidence.Child{Ref: evidence.Ref{Kind: o.Kind, APIVersion: o.APIVersion, Namespace: o.Namespace, Name: o.Name, UID: o.UID}}
	if j := o.Job(); j != nil {
		c.Conditions = jobConditions(j.Status.Conditions)
	} else {
		c.Conditions = conditions(o.Raw, "status", "conditions")
		c.Phase = cmp.Or(str(o.Raw, "status", "phase"), str(o.Raw, "status", "state"), str(o.Raw, "status", "terminalState"))
	}
	// Counts are read as written, for every kind: a batch Job's typed
	// status cannot tell a count of 0 from one not reported.
	c.Counts = counts(o.Raw, []string{"status"}, "active", "succeeded", "failed", "ready", "readyWorkerReplicas", "availableWorkerReplicas", "desiredWorkerReplicas", "restarts")
	return c
}

func jobConditions(cs []batchv1.JobCondition) []evidence.Condition {
	out := []evidence.Condition{}
	for _, c := range cs {
		out = append(out, evidence.Condition{
			Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			LastTransitionTime: cmp.Or(timeString(c.LastTransitionTime), timeString(c.LastProbeTime)),
		})
	}
	return out
}

func gateEvidence(o *snapshot.Object) evidence.Admission {
	g := evidence.Admission{
		Ref:        evidence.Ref{Kind: o.Kind, APIVersion: o.APIVersion, Namespace: o.Namespace, Name: o.Name, UID: o.UID},
		Phase:      str(o.Raw, "status", "phase"),
		Queue:      cmp.Or(str(o.Raw, "spec", "queue"), str(o.Raw, "spec", "queueName")),
		Conditions: conditions(o.Raw, "status", "conditions"),
	}
	g.MinMember = intPtr(o.Raw, "spec", "minMember")
	g.MinResources = resources(o.Raw, "spec", "minResources")
	g.ClusterQueue = str(o.Raw, "status", "admission", "clusterQueue")
	if a, ok, err := unstructured.NestedBool(o.Raw, "spec", "active"); ok && err == nil {
		g.Active = &a
	}
	g.Counts = counts(o.Raw, []string{"status"}, "pending", "running", "succeeded", "failed", "unknown")
	g.CreatedAt = timeString(o.Unstructured().GetCreationTimestamp())
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
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if o := ix.nodes[n]; o != nil {
			out = append(out, nodeEvidence(o))
		}
	}
	return out
}

func nodeEvidence(o *snapshot.Object) evidence.Node {
	n, raw := o.Node(), o.Raw
	node := evidence.Node{
		Name: n.Name, Conditions: []evidence.Condition{},
		Unschedulable: n.Spec.Unschedulable,
		Labels:        n.Labels,
		Capacity:      resources(raw, "status", "capacity"),
		Allocatable:   resources(raw, "status", "allocatable"),
		Ready:         "Unknown",
	}
	for _, c := range n.Status.Conditions {
		node.Conditions = append(node.Conditions, evidence.Condition{
			Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			LastTransitionTime: cmp.Or(timeString(c.LastTransitionTime), timeString(c.LastHeartbeatTime)),
		})
		if c.Type == corev1.NodeReady {
			node.Ready = string(c.Status)
		}
	}
	for _, t := range n.Spec.Taints {
		node.Taints = append(node.Taints, evidence.Taint{
			Key: t.Key, Value: t.Value, Effect: string(t.Effect), TimeAdded: timePtrString(t.TimeAdded),
		})
	}
	node.GPU = gpuCount(node.Capacity)
	node.EFA = quantity(node.Capacity["vpc.amazonaws.com/efa"])
	return node
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
