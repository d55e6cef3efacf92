# Helpers shared by the execution-layer rules (and the log-based GPU
# hardware and progress rules): which log matches count, in what order, and
# how they become evidence. This package emits no findings.
#
# Signature id conventions: ids that start with "exec." or "node." are
# failure signatures (a match is a specific cause for its container); ids
# that start with "net." or "launcher." are context (transport selection,
# torchrun summaries) and never make a container "explained" on their own.
package traindoc.lib.exec

import data.traindoc.lib.k8s
import data.traindoc.lib.ray

# Context signatures several rules read: a launcher's report that one of
# its processes died of a signal, in the wordings of torchrun, the
# DeepSpeed launcher ("exits with return code = -9"), mpirun and prterun
# ("exited on signal 9 (Killed)") and MPICH/Intel MPI Hydra ("KILLED BY
# SIGNAL: 9 (Killed)").
signatures contains {
	"id": "launcher.sigkill",
	"pattern": `Signal 9 \(SIGKILL\) received by PID|exitcode\s*:\s*-9\b|failed \(exitcode: -9\)|died with <Signals\.SIGKILL: 9>|exited on signal 9 \(Killed\)|exits with return code = -9\b|KILLED BY SIGNAL: 9 \(Killed\)`,
}

signatures contains {
	"id": "launcher.sigsegv",
	"pattern": `Signal 11 \(SIGSEGV\) received by PID|exitcode\s*:\s*-11\b|failed \(exitcode: -11\)|exits with return code = -11\b|KILLED BY SIGNAL: 11 \(Segmentation fault\)`,
}

signatures contains {
	"id": "launcher.sigabrt",
	"pattern": `Signal 6 \(SIGABRT\) received by PID|exitcode\s*:\s*-6\b|failed \(exitcode: -6\)|exited on signal 6 \(Aborted\)|exits with return code = -6\b|KILLED BY SIGNAL: 6 \(Aborted\)`,
}

signatures contains {
	"id": "launcher.sigbus",
	"pattern": `Signal 7 \(SIGBUS\) received by PID|exitcode\s*:\s*-7\b|failed \(exitcode: -7\)|exits with return code = -7\b`,
}

# A Python exception line ("KeyError: 'x'", "[rank3]: ValueError: ...",
# "(RayTrainWorker pid=1, ip=...) TypeError: ..."): used to find the
# exception of a rank when the log's last traceback is the launcher's own.
signatures contains {
	"id": "launcher.exception",
	"pattern": `^(?:\[(?:default)?rank\d+\]:\s*|\([\w.]+ pid=\d+[^)]*\)\s*)?(?P<type>(?:[A-Za-z_][\w]*\.)*[A-Z][\w]*(?:Error|Exception|Interrupt|Exit|Failure)(?:\([\w.]+\))?): `,
}

# Launcher and wrapper exceptions that only report that something else failed.
wrapper_exceptions := {
	"ChildFailedError",
	"SignalException",
	"TrainingFailedError",
	"RayTaskError",
	"TuneError",
	"CalledProcessError",
	"SystemExit",
	"KeyboardInterrupt",
	"ProcessRaisedException",
	"ProcessExitedException",
	"BrokenProcessPool",
}

# logs(c) are the container's own scanned logs (current and previous).
logs(c) := [lf | some lf in object.get(c, "logs", []); not lf.exec]

# scanned(c) are those logs and the command outputs collected from the pod
# (a kernel log, a notebook's output) that were scanned with the same
# signatures: where a match can be found.
scanned(c) := object.get(c, "logs", [])

# failed_container holds when the container ended badly or restarted.
failed_container(pod, c) if {
	s := k8s.terminated(c)
	k8s.exit_code(s) != 0
}

failed_container(_, c) if c.restartCount > 0

failed_container(pod, _) if pod.phase == "Failed"

# survived: the same log kept making training progress after the last
# match, so the error was handled (a retried download, a skipped batch).
survived(lf, m) if {
	p := object.get(lf, "progress", {})
	object.get(p, "lastStepLine", 0) > m.lastLine + 5
}

# relevant decides whether a match in a log speaks about a failure: never in
# a job that succeeded; always in a container that failed or restarted or a
# job that failed; otherwise only when training did not carry on after it.
relevant(pod, c, lf, m) if {
	input.phase != "Succeeded"
	not lf.exec
	_relevant_state(pod, c, lf, m)
}

# A kernel log collected from the pod (dmesg, journalctl) holds the whole
# node's history, from before this container and about other pods: it
# speaks about a failure only when the container or the job failed. Other
# command outputs (a notebook's output, Ray's session and driver logs) are
# the program's own words and count like its log, but never as progress.
relevant(pod, c, lf, _) if {
	input.phase != "Succeeded"
	lf.exec
	kernel_log(lf)
	_failed_now(pod, c)
}

relevant(pod, c, lf, m) if {
	input.phase != "Succeeded"
	lf.exec
	not kernel_log(lf)
	_relevant_state(pod, c, lf, m)
}

# kernel_log holds for a collected kernel log.
kernel_log(lf) if regex.match(`(?i)(?:^|/)(?:dmesg|kern(?:el)?|journal(?:ctl)?|syslog|messages)[^/]*$`, lf.file)

_failed_now(pod, c) if failed_container(pod, c)

_failed_now(_, _) if input.phase == "Failed"

_relevant_state(_, _, lf, _) if lf.previous

_relevant_state(pod, c, _, _) if failed_container(pod, c)

_relevant_state(_, _, _, _) if input.phase == "Failed"

_relevant_state(_, _, lf, m) if not survived(lf, m)

# hits(pod, c, ids) are the relevant matches of the given signature ids in a
# container's logs, earliest first: [{"log", "id", "m"}]. Most rules ask
# about ids that matched nowhere in the container: one set intersection
# answers them.
hits(pod, c, ids) := [] if {
	is_set(ids)
	count(ids & matched_ids(c)) == 0
} else := [h |
	some pair in sort([[_order(lf, m), {"log": lf, "id": id, "m": m}] |
		some lf in scanned(c)
		some id in ids
		m := lf.matches[id]
		relevant(pod, c, lf, m)
	])
	h := pair[1]
]

# matched_ids(c) are the signature ids that matched anywhere in the
# container's scanned logs, relevant or not.
matched_ids(c) := {id | some lf in scanned(c); some id, _ in lf.matches}

_order(lf, m) := [object.get(m, "firstTime", ""), _prev_rank(lf), m.firstLine]

_prev_rank(lf) := 0 if lf.previous

else := 1

# has_hit holds when any of ids matched relevantly in the container.
has_hit(pod, c, ids) if count(hits(pod, c, ids)) > 0

# finished_at is when the container instance a log belongs to ended. A
# container that crash-loops only shows its latest exit, which says nothing
# about when the failure first happened: then the time is unknown ("").
finished_at(c, lf) := "" if {
	c.restartCount >= 2
} else := t if {
	lf.previous
	t := c.lastState.finishedAt
} else := t if {
	t := c.state.finishedAt
} else := t if {
	t := c.lastState.finishedAt
} else := ""

# state_time is when a terminated state ended, unknown for a crash loop.
state_time(c, s) := "" if {
	c.restartCount >= 2
} else := object.get(s, "finishedAt", "")

# hit_time is the time of the first match of a hit, or when the container
# ended.
hit_time(c, h) := t if {
	t := h.m.firstTime
	t != ""
} else := finished_at(c, h.log)

# sample_evidence turns one sample of a match into an evidence entry.
sample_evidence(pod, c, lf, m, s) := {
	"kind": _evidence_kind(lf),
	"source": sprintf("pod %s container %s", [pod.name, c.name]),
	"object": k8s.pod_ref(pod),
	"file": lf.file,
	"line": s.line,
	"text": s.text,
	"before": object.get(s, "before", []),
	"after": object.get(s, "after", []),
	"time": object.get(s, "time", ""),
	"count": m.count,
}

_evidence_kind(lf) := "exec" if lf.exec

else := "log"

# hit_evidence is the first sample of a hit.
hit_evidence(pod, c, h) := sample_evidence(pod, c, h.log, h.m, h.m.samples[0])

# evidence(pod, c, hs) gives up to three entries, one per hit (first sample
# of each), in the order of hs.
evidence(pod, c, hs) := [e |
	some i, h in hs
	i < 3
	count(object.get(h.m, "samples", [])) > 0
	e := hit_evidence(pod, c, h)
]

# sample_text is the text of the first sample of a hit.
sample_text(h) := h.m.samples[0].text if count(object.get(h.m, "samples", [])) > 0

else := ""

# all_texts are the sample texts of every hit.
all_texts(hs) := [s.text | some h in hs; some s in object.get(h.m, "samples", [])]

# state_evidence is the terminated state of a container as evidence.
state_evidence(pod, c) := k8s.state_evidence(pod, c, "state", c.state) if c.state.state == "terminated"

else := k8s.state_evidence(pod, c, "lastState", c.lastState)

# subject names a container.
subject(pod, c) := k8s.container_subject(pod, c)

# hit_subject names where a matched line came from, and the global rank
# when the line says it, so that a report can say "rank 37: CUDA out of
# memory" about the right pod and node (see line_subject). A Ray driver's
# log reports its workers' errors with the worker's IP (a task header, a
# log prefix): the pod with that IP is the subject (see ray.origin).
hit_subject(pod, c, h) := s if {
	o := ray.hit_origin(pod, h)
	o.name != pod.name
	s := k8s.container_subject(o, ray.main_container(o))
} else := line_subject(pod, c, sample_text(h))

# line_subject names the container a log line came from. A launcher
# (mpirun, a Horovod or DeepSpeed launcher) forwards its ranks' output
# into its own log, so a line in the launcher's log may be about a worker
# on another node: the line's origin (see origin) is the subject, and the
# rank comes from the line's rank prefix.
line_subject(pod, c, text) := object.union(_origin_subject(pod, c, text), {"rank": r}) if {
	r := line_rank(text)
} else := _origin_subject(pod, c, text)

_origin_subject(pod, c, text) := subject(pod, c) if {
	origin(pod, text).name == pod.name
} else := k8s.container_subject(o, _main_container(o)) if {
	o := origin(pod, text)
}

_main_container(pod) := pod.containers[0] if count(object.get(pod, "containers", [])) > 0

else := {"name": ""}

# line_rank is the global rank a line's prefix names: mpirun's
# --tag-output "[1,13]<stderr>:", PyTorch's "[rank13]:", "[Rank 13]",
# "[PG 0 (default_pg) Rank 13]".
line_rank(text) := to_number(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`^\[\d+,(\d+)\]<std(?:out|err)>:`, text, 1)
	count(m) == 1
} else := to_number(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`(?i)\brank\s?(\d+)\]`, text, 1)
	count(m) == 1
} else := to_number(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`noticed that process rank (\d+) with PID`, text, 1)
	count(m) == 1
}

# origin is the pod a log line came from: the pod whose hostname NCCL
# prints ("dlrm-worker-1:2211:2311 [3] NCCL WARN ..."), else for an MPIJob
# the worker that holds the line's mpirun rank (ranks fill each worker's
# slots in order, as the operator's hostfile lists them), else the pod
# whose log holds the line.
origin(pod, text) := o if {
	o := _host_pod(text)
} else := o if {
	o := _mpi_rank_pod(text)
} else := o if {
	o := _mpi_node_pod(text)
} else := pod

_host_pod(text) := o if {
	m := regex.find_all_string_submatch_n(`^(?:\[\d+,\d+\]<std(?:out|err)>:)?\s*([A-Za-z0-9][-A-Za-z0-9.]*):\d+:\d+ \[\d+\]`, text, 1)
	count(m) == 1
	host := split(m[0][1], ".")[0]
	some o in input.pods
	o.name == host
}

_mpi_rank_pod(text) := o if {
	input.kind == "MPIJob"
	m := regex.find_all_string_submatch_n(`^\[\d+,(\d+)\]<std(?:out|err)>:`, text, 1)
	count(m) == 1
	slots := object.get(input, ["spec", "procsPerNodeCount"], 0)
	slots > 0
	index := floor(to_number(m[0][1]) / slots)
	some o in input.pods
	lower(object.get(o, "replicaType", "")) == "worker"
	object.get(o, "replicaIndex", -1) == index
}

# mpirun and prterun name the host of a process that died ("mpirun
# noticed that process rank 9 with PID 0 on node dlrm-worker-1 exited on
# signal 6 (Aborted)."); in an MPIJob the host is the worker pod's name
# (or its DNS name).
_mpi_node_pod(text) := o if {
	m := regex.find_all_string_submatch_n(`noticed that process rank \d+ with PID \d+ on node ([A-Za-z0-9][-A-Za-z0-9.]*[A-Za-z0-9])`, text, 1)
	count(m) == 1
	host := split(m[0][1], ".")[0]
	some o in input.pods
	o.name == host
}

# node_of is the node a line's origin pod ran on.
node_of(pod, text) := object.get(origin(pod, text), "nodeName", "?")

# specific_hit holds when a failure signature (exec.* or node.*) matched
# relevantly in the container.
specific_hit(pod, c) if {
	some lf in scanned(c)
	some id, m in lf.matches
	_is_failure_id(id)
	relevant(pod, c, lf, m)
}

_is_failure_id(id) if startswith(id, "exec.")

_is_failure_id(id) if startswith(id, "node.")

# exception_type is the bare type of a "pkg.Type: message" line, with Ray's
# RayTaskError(Inner) unwrapped to Inner.
exception_type(line) := t if {
	m := regex.find_all_string_submatch_n(`(?:^|[\s:])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:\(((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\))?:(?:\s|$)`, line, 1)
	count(m) > 0
	t := _unwrap(m[0][1], m[0][2])
}

_unwrap(outer, inner) := _last(inner) if inner != ""

else := _last(outer)

_last(dotted) := parts[count(parts) - 1] if parts := split(dotted, ".")

# job_running holds while the job is running.
job_running if input.phase == "Running"
