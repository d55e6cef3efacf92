# METADATA
# title: Helpers over the evidence record
# description: |
#   Small functions rules share: finding events and container states, and
#   building evidence entries in the shape the engine expects.
package traindoc.lib.k8s

# pod_ref is the object reference of a pod for evidence entries.
pod_ref(pod) := {"kind": "Pod", "namespace": pod.namespace, "name": pod.name}

# job_ref is the object reference of the job under diagnosis.
job_ref := {"kind": input.kind, "namespace": object.get(input, "namespace", ""), "name": input.name}

# list(x) is x when it is an array, else the empty array: fields that a
# kind may leave out or write as null.
list(x) := x if is_array(x)

else := []

# event_evidence turns an event into an evidence entry. Its time is the
# first occurrence: rules date findings from evidence, and a cause is when
# it started, not its latest repeat (the count says how often).
event_evidence(e) := {
	"kind": "event",
	"source": sprintf("event %s/%s %s", [e.object.kind, e.object.name, e.reason]),
	"object": {"kind": e.object.kind, "namespace": object.get(e.object, "namespace", ""), "name": e.object.name},
	"text": e.message,
	"time": event_time(e),
	"count": e.count,
}

# event_time is when an event was first seen.
event_time(e) := object.get(e, "firstTime", object.get(e, "lastTime", ""))

# condition_evidence turns a condition of an object into an evidence entry.
condition_evidence(ref, field, c) := {
	"kind": "condition",
	"source": sprintf("%s %s %s=%s", [ref.kind, ref.name, c.type, c.status]),
	"object": ref,
	"field": field,
	"text": trim_space(sprintf("%s: %s", [object.get(c, "reason", ""), object.get(c, "message", "")])),
	"time": object.get(c, "lastTransitionTime", ""),
}

# field_evidence is a fact read from an object field.
field_evidence(ref, field, text) := {
	"kind": "field",
	"source": sprintf("%s %s", [ref.kind, ref.name]),
	"object": ref,
	"field": field,
	"text": text,
}

# warning_events are the job's Warning events.
warning_events contains e if {
	some e in input.events
	e.type == "Warning"
}

# pod_events(name) are the events about the pod called name, in input
# order. They are grouped by pod once per evaluation: a job with thousands
# of pods and events would otherwise scan every event once per pod.
pod_events(name) := object.get(_pod_events, name, [])

# OPA indexes the inner comprehension on n (it closes over n with an
# equality), so that the grouping itself is linear. In a function the
# index would be rebuilt on every call.
_pod_events := {n: evs |
	some n in {e.object.name | some e in input.events; e.object.kind == "Pod"}
	evs := [e | some e in input.events; e.object.kind == "Pod"; n = e.object.name]
}

# containers(pod) are the pod's init and main containers.
containers(pod) := array.concat(object.get(pod, "initContainers", []), pod.containers)

# terminated(c) holds the terminated state of a container, current or last.
terminated(c) := c.state if c.state.state == "terminated"

else := c.lastState if c.lastState.state == "terminated"

# exit_code(state) is the exit code of a terminated state, or -1.
exit_code(state) := object.get(state, "exitCode", -1)

# container_subject names a container as a finding subject.
container_subject(pod, c) := {"kind": "Pod", "name": pod.name, "container": c.name}

# state_evidence is a container state as evidence.
state_evidence(pod, c, which, s) := {
	"kind": "field",
	"source": sprintf("pod %s container %s", [pod.name, c.name]),
	"object": pod_ref(pod),
	"field": sprintf("status.containerStatuses[%s].%s", [c.name, which]),
	"text": trim_space(sprintf("%s exitCode=%v reason=%s %s", [s.state, exit_code(s), object.get(s, "reason", ""), object.get(s, "message", "")])),
	"time": object.get(s, "finishedAt", object.get(s, "startedAt", "")),
}

# seconds_between returns the seconds from RFC 3339 time a to b.
seconds_between(a, b) := (time.parse_rfc3339_ns(b) - time.parse_rfc3339_ns(a)) / 1000000000

# age_seconds is how long before the snapshot time t was.
age_seconds(t) := seconds_between(t, input.now)
