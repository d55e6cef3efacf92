# METADATA
# title: Finding categories and their causal order
# description: |
#   The categories of taxonomy.md with their layers, and the causal relation
#   the engine uses to pick a job's primary finding: a finding whose category
#   explains another finding's category (and is not later than it) makes that
#   other finding a consequence. Rules can add to the relation with
#   custom.explains in their METADATA.
package traindoc.taxonomy

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

# A spec that cannot work explains what goes wrong when it runs. A missing
# memory-backed /dev/shm is only a risk until a DataLoader dies of it; then
# exec.shm-exhausted is what failed and both stay roots, ordered by severity.
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

# Fallback categories are defined as "no more specific cause found": when
# another finding explains one, it is dropped rather than kept as a
# consequence.
fallback := {"job.pending-too-long"}

# A quota that can never admit the job explains why its gang waits.
explains["sched.quota-exceeded"] contains "sched.gang-pending"

# A disk or EFA problem shows up as timeouts and stalls.
explains["exec.efa-fallback"] contains "exec.nccl-error"
