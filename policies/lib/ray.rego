# METADATA
# title: Ray and KubeRay helpers
# description: |
#   What the Ray rules share: which pod a Ray log line is about (Ray prints
#   the IP of the worker that failed, and a KubeRay node's IP is its pod's
#   IP), which pod is the head, how many GPUs the pods have, and the in-pod
#   outputs and status texts no scanner has read (a session log copied with
#   kubectl exec, a notebook's output, the driver log tail KubeRay copies
#   into a RayJob's status), read line by line with a rule's own patterns.
#   This package emits no findings.
package traindoc.lib.ray

import data.traindoc.lib.k8s

# `ray start` prints the node's IP into the pod's own log ("Local node IP:
# 10.244.5.31"); until the evidence carries status.podIP, that line is
# how a worker IP in a Ray message leads back to its pod.
signatures contains {
	"id": "ctx.ray-node-ip",
	"pattern": `Local node IP: (?P<ip>\d{1,3}(?:\.\d{1,3}){3})\b`,
	"hint": "Local node IP",
}

_ip := `(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})`

# Where Ray names the node a message is about, most specific first: a task
# or actor header "ray::Cls.method() (pid=1, ip=IP" and the log prefix
# "(RayTrainWorker pid=1, ip=IP)", the memory monitor's "Memory on the node
# (IP: IP", the OOM summary "at node (ID: x, IP: IP)", a worker death's
# "Worker IP address: IP", the "ip: IP" line of an ActorDiedError block,
# and a dead node's "address: IP".
_ip_patterns := [
	sprintf(`\(pid=\d+, ip=%s`, [_ip]),
	sprintf(`^\s*\([^()]*\bip=%s\)`, [_ip]),
	sprintf(`Memory on the node \(IP: %s`, [_ip]),
	sprintf(`at node \(ID: [0-9a-f]+, IP: %s\)`, [_ip]),
	sprintf(`Worker IP address: %s`, [_ip]),
	sprintf(`^\s*ip: %s\s*$`, [_ip]),
	sprintf(`node id: [0-9a-f]+ and (?:address|ip): %s`, [_ip]),
	sprintf(`Node IP: %s, node ID`, [_ip]),
]

# The lines of a block that name the address of the actor, worker or node
# an exception line is about, which follow it rather than precede it.
_after_patterns := [
	sprintf(`^\s*ip: %s\s*$`, [_ip]),
	sprintf(`Worker IP address: %s`, [_ip]),
	sprintf(`Memory on the node \(IP: %s`, [_ip]),
]

# line_ip is the node IP a Ray line names, or undefined.
line_ip(text) := _first_ip(_ip_patterns, text)

_first_ip(patterns, text) := ips[0] if {
	# Every pattern names an IPv4 address: most lines have none.
	regex.match(_ip, text)
	ips := [m[0][1] |
		some p in patterns
		m := regex.find_all_string_submatch_n(p, text, 1)
		count(m) > 0
	]
	count(ips) > 0
}

# pod_ip is a pod's IP: status.podIP when the evidence has it, else the
# "Local node IP" its own Ray log printed.
pod_ip(pod) := ip if {
	ip := object.get(pod, "podIP", "")
	ip != ""
} else := ips[0] if {
	ips := [ip |
		some c in k8s.containers(pod)
		some lf in object.get(c, "logs", [])
		ip := lf.matches["ctx.ray-node-ip"].groups.ip
	]
	count(ips) > 0
}

# ip_pod is the one pod of the job with that IP (pods on the host network
# share their node's IP: then no pod is named).
ip_pod(ip) := ps[0] if {
	ps := [p | some p in input.pods; pod_ip(p) == ip]
	count(ps) == 1
}

# sample_ip is the node a matched line is about: the line itself, the
# address lines of its block after it (an ActorDiedError names the dead
# actor's "ip:" below the exception, which the task header above it does
# not), the lines before it (the header of the task error it ends), or the
# innermost task header of the traceback it belongs to.
sample_ip(lf, s) := ip if {
	ip := line_ip(s.text)
} else := ip if {
	ips := [x | some l in object.get(s, "after", []); x := _first_ip(_after_patterns, l)]
	count(ips) > 0
	ip := ips[0]
} else := ip if {
	ip := _first_line_ip(array.reverse(object.get(s, "before", [])))
} else := ip if {
	tb := object.get(lf, "traceback", [])
	is := [i | some i, l in tb; contains(l, trim_space(s.text))]
	count(is) > 0
	ip := _first_line_ip(array.reverse(array.slice(tb, 0, is[count(is) - 1])))
}

_first_line_ip(ls) := ips[0] if {
	ips := [ip | some l in ls; ip := line_ip(l)]
	count(ips) > 0
}

# origin is the pod a matched line is about: the pod whose IP the line (or
# its context) names, else the pod whose log holds it.
origin(pod, lf, s) := o if {
	o := ip_pod(sample_ip(lf, s))
} else := pod

# hit_origin is origin for the first sample of a hit ({"log", "id", "m"}).
hit_origin(pod, h) := origin(pod, h.log, h.m.samples[0]) if count(object.get(h.m, "samples", [])) > 0

else := pod

# main_container is a pod's first container (a Ray pod runs ray start in
# it), the container a line about that pod is attributed to.
main_container(pod) := pod.containers[0] if count(object.get(pod, "containers", [])) > 0

else := {"name": ""}

# subject names the container a matched line is about.
subject(pod, c, lf, s) := k8s.container_subject(pod, c) if {
	origin(pod, lf, s).name == pod.name
} else := k8s.container_subject(o, main_container(o)) if {
	o := origin(pod, lf, s)
}

# is_ray holds for the Ray job kinds.
is_ray if input.kind in {"RayJob", "RayCluster"}

# is_head holds for a Ray head pod.
is_head(pod) if lower(object.get(pod, "replicaType", "")) == "head"

# gpus is the number of GPUs a pod or template asks for, summed over its
# containers (limits; requests when no limit is written).
gpus(containers) := sum([_gpu(c) | some c in containers])

_gpu(c) := n if {
	v := object.get(c, ["limits", "nvidia.com/gpu"], object.get(c, ["requests", "nvidia.com/gpu"], "0"))
	n := to_number(v)
} else := 0

pod_gpus(pod) := gpus(object.get(pod, "containers", []))

# cluster_gpus is the number of GPUs the Ray worker groups ask for.
cluster_gpus := sum([n |
	some g in object.get(input, "replicas", [])
	lower(g.type) != "head"
	n := g.expected * object.get(g.template, "gpuLimit", 0)
])

# --- Texts no scanner has read -------------------------------------------
#
# In-pod outputs other than nvidia-smi, ray status, ray job list and
# checkpoint listings (exec/<pod>/<name>.txt: a raylet.out, a job driver
# log, a notebook's output) are kept as text, not scanned; nor are the
# driver log tails that KubeRay copies into a RayJob's status.message and
# `ray job list` prints as a job's message. The Ray rules read them line by
# line with their own patterns. When the engine scans such an output like
# a log (it then appears among a container's logs under the same file
# name), it is skipped here so that nothing is counted twice.

texts contains {"pod": pod, "file": t.file, "lines": split(t.text, "\n")} if {
	some pod in input.pods
	some t in object.get(object.get(pod, "exec", {}), "other", [])
	not _scanned(pod, t.file)
}

texts contains {"pod": pod, "file": sprintf("%s (ray job list: %s)", [object.get(pod.exec.rayJobs[i], "id", ""), pod.name]), "lines": split(j.message, "\n")} if {
	some pod in input.pods
	some i, j in object.get(object.get(pod, "exec", {}), "rayJobs", [])
	j.status == "FAILED"
	contains(object.get(j, "message", ""), "\n")
}

# A RayJob's status message repeats the end of the log its submitter pod
# tails; it is read only when that log is not in the snapshot (HTTP
# submission mode, or the pods are gone).
texts contains {"pod": null, "file": "status.message", "lines": split(m, "\n")} if {
	input.kind == "RayJob"
	m := object.get(object.get(input, "status", {}), "message", "")
	contains(m, "\n")
	not _submitter_logged
}

_submitter_logged if {
	some pod in input.pods
	lower(object.get(pod, "replicaType", "")) == "submitter"
	some c in k8s.containers(pod)
	count(object.get(c, "logs", [])) > 0
}

_scanned(pod, file) if {
	some c in k8s.containers(pod)
	some lf in object.get(c, "logs", [])
	lf.file == file
}

# text_matches are the lines of the unscanned texts that match one of the
# patterns ({id: regexp}), in file and line order, each with a few lines
# of context: [{"pod", "file", "line", "id", "text", "before", "after"}].
text_matches(patterns) := [h |
	some pair in sort([[[t.file, i], h] |
		some t in texts
		some i, l in t.lines
		some id, p in patterns
		regex.match(p, l)
		h := {
			"pod": t.pod, "file": t.file, "line": i + 1, "id": id, "text": trim_space(l),
			"before": array.slice(t.lines, i - 3, i),
			"after": array.slice(t.lines, i + 1, i + 7),
		}
	])
	h := pair[1]
]

# text_hits are the text_matches that speak about a failure.
text_hits(patterns) := [h |
	some h in text_matches(patterns)
	some t in texts
	t.file == h.file
	t.pod == h.pod
	_text_relevant(t, h.line - 1)
]

# A text line speaks about a failure in a job that did not succeed, unless
# training visibly carried on after it in the same text.
_text_relevant(_, _) if input.phase == "Failed"

_text_relevant(t, i) if {
	not input.phase in {"Failed", "Succeeded"}
	not _progress_after(t, i)
}

_progress_after(t, i) if {
	some j, l in t.lines
	j > i + 1
	regex.match(`(?i)\bstep[\s:=]+\d+|'loss': |training_iteration|\d+/\d+ \[\d`, l)
}

# text_origin is the pod a text line is about: the node it names, else the
# pod whose output it is (none for a RayJob's status).
text_origin(h) := o if {
	ips := [ip | some l in array.concat([h.text], array.reverse(h.before)); ip := line_ip(l)]
	count(ips) > 0
	o := ip_pod(ips[0])
} else := o if {
	ips := [ip | some l in h.after; ip := _first_ip(_after_patterns, l)]
	count(ips) > 0
	o := ip_pod(ips[0])
} else := h.pod if h.pod != null

# text_subject names what a text line is about: a pod's main container, or
# the job itself for a RayJob's status message.
text_subject(h) := k8s.container_subject(o, main_container(o)) if {
	o := text_origin(h)
} else := {"kind": input.kind, "name": input.name}

# text_evidence is a text line as evidence.
text_evidence(h) := {
	"kind": "exec",
	"source": _text_source(h),
	"object": _text_object(h),
	"file": h.file,
	"line": h.line,
	"text": h.text,
}

_text_source(h) := sprintf("pod %s %s", [h.pod.name, h.file]) if h.pod != null

else := sprintf("%s %s status.message", [input.kind, input.name])

_text_object(h) := k8s.pod_ref(h.pod) if h.pod != null

else := k8s.job_ref

# --- Exceptions that wrap another ----------------------------------------

# wrapped_type is the exception type Ray reports a task failed with:
# "ray.exceptions.RayTaskError(PermissionError): ray::f() (...)" is a
# PermissionError raised inside the task.
wrapped_type(text) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`RayTaskError\((\w+)\)`, text, 1)
	count(m) > 0
}
