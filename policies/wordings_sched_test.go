package policies_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The scheduling setups of lines.yaml (event, condition:<Kind>) place a
// line where schedulers, queues and controllers write it: in an event or
// in a condition of a pod, a pod group, a Kueue workload or the job. The
// job around it is a one-pod PyTorchJob in a given state; see
// schedulingWording in wordings_test.go for the fields.

func isScheduling(setup string) bool {
	return setup == "event" || strings.HasPrefix(setup, "condition:")
}

// stateOf is the job's state: pending for a real line, running for a
// look-alike, unless the wording says.
func stateOf(tc wordingCase) string {
	if tc.w.State != "" {
		return tc.w.State
	}
	if tc.match {
		return "pending"
	}
	return "running"
}

// schedCase is a scheduling wording resolved into what to write.
type schedCase struct {
	state string
	// kind is the kind of the object holding the line: the condition's
	// kind, or what the event is about.
	kind, otherPod string
	podGroupAPI    string
	kueue, gang    bool
}

func resolveSchedCase(t *testing.T, tc wordingCase) schedCase {
	t.Helper()
	w := tc.w
	c := schedCase{state: stateOf(tc), podGroupAPI: cmpOr(w.APIVersion, "scheduling.volcano.sh/v1beta1")}
	switch setup := setupOf(tc); {
	case setup == "event":
		c.kind = cmpOr(w.Object, "Pod")
		if name, ok := strings.CutPrefix(c.kind, "Pod/"); ok {
			c.kind, c.otherPod = "Pod", name
		}
		if w.Condition != nil || w.Conditions != nil {
			t.Fatalf("%s: an event has no conditions", tc.file)
		}
	default:
		c.kind = strings.TrimPrefix(setup, "condition:")
		if w.Condition["type"] == "" || w.Condition["status"] == "" {
			t.Fatalf("%s: setup %s needs condition: {type, status}", tc.file, setup)
		}
		if w.Reason != "" || w.EventType != "" || w.Object != "" {
			t.Fatalf("%s: reason, eventType and object are for events", tc.file)
		}
	}
	switch c.kind {
	case "Pod", "PyTorchJob":
	case "Workload":
		c.kueue = true
	case "PodGroup":
		c.gang = true
	default:
		t.Fatalf("%s: kind %q: want Pod, PodGroup, Workload or PyTorchJob", tc.file, c.kind)
	}
	switch c.state {
	case "pending", "running", "failed", "succeeded":
	default:
		t.Fatalf("%s: state %q: want pending, running, failed or succeeded", tc.file, c.state)
	}
	if len(w.Before) > 0 || len(w.After) > 0 || w.Exec != "" || w.Fabric != "" {
		t.Fatalf("%s: before, after, exec and fabric are for log lines", tc.file)
	}
	return c
}

// writeSchedulingSnapshot writes the job, its pod (none for a Kueue job
// waiting for admission: Kueue keeps it suspended), the object that holds
// the line, and the pod's log when it ran.
func writeSchedulingSnapshot(t *testing.T, tc wordingCase, dir string) string {
	t.Helper()
	c := resolveSchedCase(t, tc)
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("snapshot.yaml", "collectedAt: '2026-05-04T10:30:00Z'\ncluster: wordings\n")
	docs := []string{schedJob(c, tc)}
	queued := c.kueue && c.state == "pending"
	if !queued {
		docs = append(docs, schedPod(c, tc))
	}
	switch {
	case c.gang:
		docs = append(docs, schedPodGroup(c, tc))
	case c.kueue:
		docs = append(docs, schedWorkload(c, tc))
	}
	if setupOf(tc) == "event" {
		docs = append(docs, schedEvents(c, tc)...)
	}
	write("objects.yaml", strings.Join(docs, "---\n"))
	if !queued && c.state != "pending" {
		log := append([]string{}, startupNoise...)
		if c.state != "failed" {
			log = append(log, steps(1, 80)...)
		}
		write("logs/wording-master-0/pytorch.log", strings.Join(log, "\n")+"\n")
	}
	return dir
}

// quote writes s as a YAML (JSON) string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func schedScheduler(c schedCase) string {
	switch {
	case !c.gang:
		return "default-scheduler"
	case strings.HasPrefix(c.podGroupAPI, "scheduling.x-k8s.io"):
		return "scheduler-plugins-scheduler"
	case strings.HasPrefix(c.podGroupAPI, "scheduler.tensorstack.dev"):
		return "t9k-scheduler"
	}
	return "volcano"
}

func schedJob(c schedCase, tc wordingCase) string {
	var conds []string
	add := func(typ, status, reason, msg, at string) {
		conds = append(conds, fmt.Sprintf("  - {type: %s, status: %q, reason: %s, message: %s, lastTransitionTime: %q}", typ, status, reason, quote(msg), at))
	}
	add("Created", "True", "PyTorchJobCreated", "PyTorchJob wording is created.", "2026-05-04T08:59:00Z")
	suspend := false
	switch c.state {
	case "pending":
		if c.kueue {
			suspend = true
			add("Suspended", "True", "PyTorchJobSuspended", "PyTorchJob wording is suspended.", "2026-05-04T08:59:00Z")
		}
	case "running":
		add("Running", "True", "PyTorchJobRunning", "PyTorchJob wording is running.", "2026-05-04T09:00:00Z")
	case "failed":
		add("Running", "False", "PyTorchJobRunning", "PyTorchJob wording is running.", "2026-05-04T10:00:00Z")
		add("Failed", "True", "PyTorchJobFailed", "PyTorchJob wording is failed because 1 Master replica(s) failed.", "2026-05-04T10:00:00Z")
	case "succeeded":
		add("Running", "False", "PyTorchJobRunning", "PyTorchJob wording is running.", "2026-05-04T10:00:00Z")
		add("Succeeded", "True", "PyTorchJobSucceeded", "PyTorchJob wording is successfully completed.", "2026-05-04T10:00:00Z")
	}
	labels := "{}"
	if c.kueue {
		labels = "{kueue.x-k8s.io/queue-name: team-a}"
	}
	return fmt.Sprintf(`apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: wording
  namespace: ml
  uid: 5f0e7a52-0000-4000-8000-000000000001
  creationTimestamp: "2026-05-04T08:59:00Z"
  labels: %s
spec:
  runPolicy: {suspend: %t}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          schedulerName: %s
          containers:
          - name: pytorch
            image: registry.example.com/ml/train:2024.05-pt2.3
            resources:
              limits: {nvidia.com/gpu: "8", memory: 480Gi}
            volumeMounts:
            - {name: dshm, mountPath: /dev/shm}
          volumes:
          - name: dshm
            emptyDir: {medium: Memory}
status:
  conditions:
%s
`, labels, suspend, schedScheduler(c), strings.Join(append(conds, conditionLines(c, tc, "PyTorchJob", "  ")...), "\n"))
}

// conditionLines are the line's condition and its companions, for the
// object of kind.
func conditionLines(c schedCase, tc wordingCase, kind, indent string) []string {
	if setupOf(tc) != "condition:"+kind {
		return nil
	}
	var out []string
	for _, m := range append([]map[string]string{tc.w.Condition}, tc.w.Conditions...) {
		msg := m["message"]
		if len(out) == 0 {
			msg = tc.w.Line
		}
		at := cmpOr(m["lastTransitionTime"], "2026-05-04T08:59:05Z")
		out = append(out, fmt.Sprintf("%s- {type: %s, status: %q, reason: %s, message: %s, lastTransitionTime: %q}",
			indent, m["type"], m["status"], quote(m["reason"]), quote(msg), at))
	}
	return out
}

func schedPod(c schedCase, tc wordingCase) string {
	labels := []string{"training.kubeflow.org/job-name: wording", "training.kubeflow.org/replica-type: master", `training.kubeflow.org/replica-index: "0"`}
	annotations := "{}"
	if c.gang {
		switch schedScheduler(c) {
		case "scheduler-plugins-scheduler":
			labels = append(labels, "scheduling.x-k8s.io/pod-group: wording")
		case "t9k-scheduler":
			labels = append(labels, "scheduler.tensorstack.dev/group-name: wording")
		default:
			annotations = "{scheduling.k8s.io/group-name: wording}"
		}
	}
	node, phase, state := "", "Pending", ""
	conds := []string{`  - {type: PodScheduled, status: "False", reason: Unschedulable, lastTransitionTime: "2026-05-04T08:59:01Z"}`}
	switch c.state {
	case "running":
		node, phase = "gpu-node-7", "Running"
		state = `running: {startedAt: "2026-05-04T09:00:00Z"}`
	case "failed":
		node, phase = "gpu-node-7", "Failed"
		state = `terminated: {exitCode: 1, reason: Error, startedAt: "2026-05-04T09:00:00Z", finishedAt: "2026-05-04T10:00:00Z"}`
	case "succeeded":
		node, phase = "gpu-node-7", "Succeeded"
		state = `terminated: {exitCode: 0, reason: Completed, startedAt: "2026-05-04T09:00:00Z", finishedAt: "2026-05-04T10:00:00Z"}`
	}
	if node != "" {
		conds = []string{`  - {type: PodScheduled, status: "True", lastTransitionTime: "2026-05-04T08:59:02Z"}`}
	}
	if own := conditionLines(c, tc, "Pod", "  "); own != nil {
		// The line's condition replaces one of the same type.
		typ := tc.w.Condition["type"]
		conds = slicesDeleteType(conds, typ)
		conds = append(conds, own...)
	}
	statuses := ""
	if state != "" {
		statuses = fmt.Sprintf(`  containerStatuses:
  - name: pytorch
    image: registry.example.com/ml/train:2024.05-pt2.3
    ready: %t
    restartCount: 0
    state:
      %s
`, c.state == "running", state)
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: wording-master-0
  namespace: ml
  uid: 5f0e7a52-0000-4000-8000-000000000002
  creationTimestamp: "2026-05-04T08:59:01Z"
  labels: {%s}
  annotations: %s
  ownerReferences:
  - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: wording, uid: 5f0e7a52-0000-4000-8000-000000000001, controller: true}
spec:
  nodeName: %q
  schedulerName: %s
  containers:
  - name: pytorch
    image: registry.example.com/ml/train:2024.05-pt2.3
    resources:
      limits: {nvidia.com/gpu: "8", memory: 480Gi}
    volumeMounts:
    - {name: dshm, mountPath: /dev/shm}
  volumes:
  - name: dshm
    emptyDir: {medium: Memory}
status:
  phase: %s
  conditions:
%s
%s`, strings.Join(labels, ", "), annotations, node, schedScheduler(c), phase, strings.Join(conds, "\n"), statuses)
}

func slicesDeleteType(conds []string, typ string) []string {
	var out []string
	for _, c := range conds {
		if !strings.Contains(c, "type: "+typ+",") {
			out = append(out, c)
		}
	}
	return out
}

func schedPodGroup(c schedCase, tc wordingCase) string {
	phase, counts := "Pending", "pending: 1"
	switch c.state {
	case "running":
		phase, counts = "Running", "running: 1"
	case "failed":
		phase, counts = "Running", "failed: 1"
	case "succeeded":
		phase, counts = "Completed", "succeeded: 1"
	}
	conds := conditionLines(c, tc, "PodGroup", "  ")
	return fmt.Sprintf(`apiVersion: %s
kind: PodGroup
metadata:
  name: wording
  namespace: ml
  creationTimestamp: "2026-05-04T08:59:00Z"
  ownerReferences:
  - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: wording, uid: 5f0e7a52-0000-4000-8000-000000000001, controller: true}
spec: {minMember: 1, queue: default}
status:
  phase: %s
  %s
%s
`, c.podGroupAPI, phase, counts, conditionsBlock(conds))
}

func schedWorkload(c schedCase, tc wordingCase) string {
	conds := conditionLines(c, tc, "Workload", "  ")
	if c.state != "pending" {
		// A workload whose job runs holds its quota and was admitted,
		// unless the line's conditions say otherwise.
		for _, d := range [][3]string{
			{"QuotaReserved", "QuotaReserved", "Quota reserved in ClusterQueue team-a-cq"},
			{"Admitted", "Admitted", "The workload is admitted"},
		} {
			if !hasConditionType(tc, d[0]) {
				conds = append(conds, fmt.Sprintf(`  - {type: %s, status: "True", reason: %s, message: %q, lastTransitionTime: "2026-05-04T08:59:50Z"}`, d[0], d[1], d[2]))
			}
		}
	}
	admission := ""
	if c.state != "pending" {
		admission = "  admission: {clusterQueue: team-a-cq}\n"
	}
	return fmt.Sprintf(`apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: pytorchjob-wording-3f2a1
  namespace: ml
  creationTimestamp: "2026-05-04T08:59:00Z"
  labels: {kueue.x-k8s.io/job-uid: 5f0e7a52-0000-4000-8000-000000000001}
  ownerReferences:
  - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: wording, uid: 5f0e7a52-0000-4000-8000-000000000001, controller: true}
spec:
  queueName: team-a
  podSets:
  - name: master
    count: 1
status:
%s%s
`, admission, conditionsBlock(conds))
}

// schedEvents are the line's event and, for a pod scheduled since, the
// scheduler's Scheduled event after it.
func schedEvents(c schedCase, tc wordingCase) []string {
	obj := map[string]string{
		"Pod":        "{apiVersion: v1, kind: Pod, name: wording-master-0, namespace: ml}",
		"PodGroup":   fmt.Sprintf("{apiVersion: %s, kind: PodGroup, name: wording, namespace: ml}", c.podGroupAPI),
		"Workload":   "{apiVersion: kueue.x-k8s.io/v1beta1, kind: Workload, name: pytorchjob-wording-3f2a1, namespace: ml}",
		"PyTorchJob": "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: wording, namespace: ml}",
	}[c.kind]
	if c.otherPod != "" {
		obj = fmt.Sprintf("{apiVersion: v1, kind: Pod, name: %s, namespace: ml}", c.otherPod)
	}
	source := map[string]string{"Pod": schedScheduler(c), "PodGroup": schedScheduler(c), "Workload": "kueue-admission", "PyTorchJob": "pytorchjob-controller"}[c.kind]
	first, last, count := "2026-05-04T08:59:01Z", "2026-05-04T10:29:00Z", 180
	if c.state != "pending" {
		last, count = "2026-05-04T08:59:01Z", 1
	}
	event := func(name, obj, reason, typ, msg, first, last string, count int) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Event
metadata: {name: %s, namespace: ml, creationTimestamp: %q}
involvedObject: %s
reason: %s
type: %s
message: %s
count: %d
firstTimestamp: %q
lastTimestamp: %q
source: {component: %s}
`, name, first, obj, reason, typ, quote(msg), count, first, last, source)
	}
	out := []string{event("wording.line", obj, cmpOr(tc.w.Reason, "FailedScheduling"), cmpOr(tc.w.EventType, "Warning"), tc.w.Line, first, last, count)}
	if c.state != "pending" && c.kind == "Pod" && c.otherPod == "" {
		out = append(out, event("wording.scheduled", obj, "Scheduled", "Normal",
			"Successfully assigned ml/wording-master-0 to gpu-node-7", "2026-05-04T08:59:02Z", "2026-05-04T08:59:02Z", 1))
	}
	return out
}

func hasConditionType(tc wordingCase, typ string) bool {
	if !strings.HasPrefix(setupOf(tc), "condition:") {
		return false
	}
	for _, m := range append([]map[string]string{tc.w.Condition}, tc.w.Conditions...) {
		if m["type"] == typ {
			return true
		}
	}
	return false
}

// conditionsBlock writes a status's conditions, an empty list included.
func conditionsBlock(conds []string) string {
	if len(conds) == 0 {
		return "  conditions: []"
	}
	return "  conditions:\n" + strings.Join(conds, "\n")
}
