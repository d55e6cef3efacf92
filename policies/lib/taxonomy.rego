# METADATA
# title: Finding categories and their causal order
# description: |
#   The categories of taxonomy.md with their layers, which of them are
#   risks rather than faults, which are fallbacks, which root causes a
#   restart can fix, and the causal relation the engine uses to pick a
#   job's primary finding: a finding whose category explains another
#   finding's category (and is not later than it) makes that other finding
#   a consequence. Rules can add to the relation with custom.explains in
#   their METADATA. The engine reads all of this as data; nothing here is
#   repeated in Go.
package traindoc.taxonomy

# categories maps every category of taxonomy.md to its layer.
categories := {
	"healthy": "control",
	"spec.invalid-replicas": "spec",
	"spec.nproc-exceeds-gpus": "spec",
	"spec.no-shm": "spec",
	"sched.insufficient-gpu": "control",
	"sched.insufficient-resources": "control",
	"sched.node-mismatch": "control",
	"sched.quota-exceeded": "control",
	"sched.gang-pending": "control",
	"sched.volume-unbound": "control",
	"pod.image-pull": "control",
	"pod.config-error": "control",
	"pod.evicted": "control",
	"pod.preempted": "control",
	"node.failure": "node",
	"node.gpu-hardware": "node",
	"job.creation-failed": "control",
	"job.replica-mismatch": "control",
	"job.backoff-exceeded": "control",
	"job.deadline-exceeded": "control",
	"job.suspended": "control",
	"job.debug-mode": "control",
	"job.pending-too-long": "control",
	"job.unexplained-failure": "control",
	"exec.oom-killed": "execution",
	"exec.killed": "execution",
	"exec.cuda-oom": "execution",
	"exec.nan-loss": "execution",
	"exec.missing-module": "execution",
	"exec.file-not-found": "execution",
	"exec.disk-full": "execution",
	"exec.shm-exhausted": "execution",
	"exec.nccl-timeout": "execution",
	"exec.nccl-error": "execution",
	"exec.efa-fallback": "execution",
	"exec.rendezvous-failure": "execution",
	"exec.address-in-use": "execution",
	"exec.cuda-env": "execution",
	"exec.cuda-error": "execution",
	"exec.segfault": "execution",
	"exec.permission-denied": "execution",
	"exec.ray-actor-died": "execution",
	"exec.python-error": "execution",
	"exec.nonzero-exit": "execution",
	"progress.stalled": "progress",
	"progress.gpu-idle": "progress",
	"progress.throughput-drop": "progress",
	"progress.checkpoint-stale": "progress",
}

# layers in the order of the diagnosis process: how reports and the site
# list them.
layers := ["spec", "control", "execution", "progress", "node"]

# root_order breaks ties between independent root causes of equal
# severity: hardware and node problems first (they explain what ran on
# them), then what the spec makes impossible, then the control plane, then
# the program, then progress symptoms.
root_order := ["node", "spec", "control", "execution", "progress"]

# risks are configurations likely to bite that have not yet: a risk never
# makes a job unhealthy on its own and is never the primary while the job
# has a fault. Every other category except healthy is a fault.
risks := {"spec.no-shm"}

# held are the categories of a job that someone holds on purpose:
# suspended, or kept in a debug mode. Such a job is neither healthy nor
# failing; it is shown in its own state, and what follows from the hold
# (idle GPUs in debug mode) does not make it unhealthy.
held := {"job.suspended", "job.debug-mode"}

# retryable root causes are those a restart from the newest checkpoint can
# fix: hardware and node faults, disruptions from outside the job,
# collective failures, kills from outside, stalls. Never retryable: spec,
# scheduling, image and config errors, missing modules and files,
# permissions, CUDA environment errors, and failures that the same run
# repeats without a change (CUDA OOM, host OOM, diverged loss). A Ray
# actor that died because its node failed or was preempted is retried
# through that node or preemption finding, which explains it and so is the
# primary; one that died of its own bug is not retried.
retryable := {
	"node.failure",
	"node.gpu-hardware",
	"pod.evicted",
	"pod.preempted",
	"exec.nccl-timeout",
	"exec.nccl-error",
	"exec.rendezvous-failure",
	"exec.killed",
	"progress.stalled",
}

# Categories that are symptoms of almost any failure of another replica:
# a collective that times out because a peer died, a launcher or survivor
# that is killed when the job is torn down, a retry budget used up.
_cascade := {
	"exec.nccl-timeout",
	"exec.nccl-error",
	"exec.killed",
	"exec.rendezvous-failure",
	"exec.ray-actor-died",
	"exec.python-error",
	"exec.nonzero-exit",
	"exec.segfault",
	"job.backoff-exceeded",
	"job.replica-mismatch",
	"job.pending-too-long",
	"job.deadline-exceeded",
	"progress.stalled",
	"progress.gpu-idle",
	"progress.throughput-drop",
	"progress.checkpoint-stale",
}

# Root causes inside a container: each explains the cascade above (except
# itself).
_exec_roots := {
	"exec.oom-killed",
	"exec.cuda-oom",
	"exec.nan-loss",
	"exec.missing-module",
	"exec.file-not-found",
	"exec.disk-full",
	"exec.shm-exhausted",
	"exec.address-in-use",
	"exec.cuda-env",
	"exec.cuda-error",
	"exec.permission-denied",
	"exec.efa-fallback",
}

# Reasons a job cannot start: they explain pending and missing replicas.
_start_blockers := {
	"sched.insufficient-gpu",
	"sched.insufficient-resources",
	"sched.node-mismatch",
	"sched.quota-exceeded",
	"sched.gang-pending",
	"sched.volume-unbound",
	"pod.image-pull",
	"pod.config-error",
	"job.creation-failed",
	"job.suspended",
	"job.debug-mode",
}

_start_symptoms := {
	"job.pending-too-long",
	"job.replica-mismatch",
	"job.backoff-exceeded",
	"job.deadline-exceeded",
	"exec.killed",
	"exec.nonzero-exit",
	"progress.stalled",
	"progress.gpu-idle",
}

# explains[cause] is the set of categories a finding of category cause can
# explain.
explains[cause] contains effect if {
	some cause in _exec_roots
	some effect in _cascade
	effect != cause
}

explains[cause] contains effect if {
	some cause in _start_blockers
	some effect in _start_symptoms
}

# A node or GPU that fails explains everything that runs on it.
explains[cause] contains effect if {
	some cause in {"node.failure", "node.gpu-hardware"}
	some effect, layer in categories
	layer in {"execution", "progress", "control"}
	not effect in {"healthy", "job.suspended", "job.debug-mode"}
}

explains["node.failure"] contains "node.gpu-hardware"

# Disruptions from outside the job explain the kills and restarts they cause.
explains[cause] contains effect if {
	some cause in {"pod.evicted", "pod.preempted"}
	some effect in _cascade
}

# A spec that cannot work explains what goes wrong when it runs.
explains["spec.nproc-exceeds-gpus"] contains effect if {
	some effect in (_cascade | {"exec.cuda-error", "exec.cuda-env"})
}

explains["spec.invalid-replicas"] contains effect if {
	some effect in ((_cascade | _start_symptoms) | {"job.creation-failed"})
}

# Any failing container explains a used-up retry budget, and a deadline
# that ended the job explains it too.
explains[cause] contains "job.backoff-exceeded" if {
	some cause, layer in categories
	layer == "execution"
}

explains["job.deadline-exceeded"] contains "job.backoff-exceeded"

# Fallback categories are defined as "no more specific cause found".
#
# fallback: dropped when another finding explains it, rather than kept as a
# consequence.
fallback := {"job.pending-too-long"}

# fallback_job: dropped when the job has another fault that names a cause.
fallback_job := {"job.unexplained-failure"}

# no_cause are faults that say that something failed but not why: a bare
# non-zero exit code. They do not make a failed job explained, and the
# "cause not identified" finding explains them.
no_cause := {"exec.nonzero-exit"}

# fallback_subject: dropped for a container (or pod) in which any rule,
# built-in or user, found a more specific fault. The number orders the
# fallbacks themselves: a Python exception is more specific than a bare
# non-zero exit of the same container.
fallback_subject := {
	"exec.python-error": 1,
	"exec.nonzero-exit": 2,
}

# A missing memory-backed /dev/shm predicts exhausted shared memory: when
# that happens, the risk is its cause.
explains["spec.no-shm"] contains "exec.shm-exhausted"

# A failure no rule names still explains what it leads to.
explains["job.unexplained-failure"] contains effect if {
	some effect in {"exec.nonzero-exit", "job.backoff-exceeded", "job.replica-mismatch", "progress.stalled"}
}

# A quota that can never admit the job explains why its gang waits.
explains["sched.quota-exceeded"] contains "sched.gang-pending"

# A container killed from outside (a liveness probe, an eviction's
# SIGKILL) fails the job, whose teardown then sends SIGTERM to the other
# replicas: the first kill explains the later ones.
explains["exec.killed"] contains "exec.killed"

# A disk or EFA problem shows up as timeouts and stalls.
explains["exec.efa-fallback"] contains "exec.nccl-error"
