# METADATA
# title: A Ray task or training run failed with an error
# description: |
#   Ray reports an error raised inside a task, an actor or a training worker
#   wrapped in its own exception: "ray.exceptions.RayTaskError(PermissionError):
#   ray::RayTrainWorker.train() (pid=..., ip=...)", Ray Train's
#   TrainingFailedError and WorkerGroupError ("Training failed due to worker
#   errors: [Rank 3 Error Snippet]"), Tune's "Trial ... errored". The wrapped
#   error is the cause, on the worker whose IP the message names. This rule
#   reads the outputs no scanner read (a driver log or notebook output copied
#   from the head, the driver log tail in a RayJob's status, `ray job list`);
#   in container logs the rule of the wrapped error's own category finds it.
# custom:
#   category: exec.python-error
#   severity: error
#   owner: user
#   message:
#     en: "A Ray {{.wrapper}} failed with {{.error}}."
#     zh: "Ray {{.wrapper_zh}}失败，错误为 {{.error}}。"
#   remediation:
#     en: |
#       - Read the wrapped error below the Ray wrapper line: it names the real problem (a path, a permission, GPU memory, a missing package) and the worker (pid, ip) it happened on.
#       - Run `ray logs worker-<id>*` or `ray job logs <submission id>` on the head for the whole output of that worker.
#       - Fix the cause; a Ray Train `FailureConfig(max_failures=...)` only helps with failures a retry can fix (node loss, preemption), not with these.
#     zh: |
#       - 阅读 Ray 包装行下面被包装的错误：它说明了真正的问题（路径、权限、GPU 内存、缺少的包）以及出错的 worker（pid、ip）。
#       - 在 head 上执行 `ray logs worker-<id>*` 或 `ray job logs <submission id>` 查看该 worker 的完整输出。
#       - 修复原因；Ray Train 的 `FailureConfig(max_failures=...)` 只对重试能解决的失败（节点丢失、抢占）有用，对这些错误无效。
#   zh:
#     title: Ray 任务或训练因错误失败
#     description: |
#       Ray 会把任务、actor 或训练 worker 内部抛出的错误包装在自己的异常中报告："ray.exceptions.RayTaskError(PermissionError): ray::RayTrainWorker.train() (pid=..., ip=...)"、Ray Train 的 TrainingFailedError 和 WorkerGroupError（"Training failed due to worker errors: [Rank 3 Error Snippet]"）、Tune 的 "Trial ... errored"。被包装的错误才是原因，它发生在消息中 IP 所指的 worker 上。本规则读取扫描器未读取的输出（从 head 复制的 driver 日志或 notebook 输出、RayJob 状态中的 driver 日志尾部、`ray job list`）；在容器日志中，由被包装错误所属类别的规则发现它。
package traindoc.rules.exec.ray_task_error

import data.traindoc.lib.ray

# The wrappers: Ray Core's RayTaskError(X) (Ray 1.x: "RayTaskError: ray::f()",
# the type only in the wrapped lines), Ray Train v1's
# TrainingFailedError, v2's TrainingFailedError / WorkerGroupError /
# WorkerTrainingFailedError, Tune's trial failure lines, and Ray Jobs'
# "Job entrypoint command failed with exit code 1, last available logs
# (truncated to 20,000 chars):" before the tail of the driver's log.
_wrapper := `RayTaskError\(\w+\)|\bRayTaskError: ray::|\bTrainingFailedError\b|\bWorkerGroupError\b|\bWorkerTrainingFailedError\b|Training failed due to worker errors|Trial \S+ errored after \d+ iterations|Trial task failed for trial \S+|Job entrypoint command failed with exit code \d+`

# What the wrapped error says, most specific first, and its category.
_inner := [
	["exec.cuda-oom", `CUDA out of memory|OutOfMemoryError: (?:CUDA|HIP)|CUDA error: out of memory|HIP out of memory`],
	["exec.nccl-timeout", `Watchdog caught collective operation timeout`],
	["exec.nccl-error", `NCCL error|\bnccl(?:System|Internal|UnhandledCuda|Remote)Error\b|DistBackendError`],
	["exec.disk-full", `No space left on device|\[Errno 28\]`],
	["exec.file-not-found", `FileNotFoundError|\[Errno 2\] No such file or directory|: No such file or directory\s*$`],
	["exec.permission-denied", `PermissionError|\[Errno 13\]|\[Errno 30\] Read-only file system`],
	["exec.missing-module", `ModuleNotFoundError|No module named`],
]

# Errors another Ray rule reads in the same outputs: the memory monitor's
# kill and an actor's or node's death.
_elsewhere := `OutOfMemoryError: Task was killed|running low on memory|RayOutOfMemoryError|ActorDiedError|RayActorError|ActorUnavailableError|WorkerCrashedError|OwnerDiedError|NodeDiedError|The actor died`

_exception := `^\s*(?:\[[^\]]*\]:?\s*)?(?:\([^)]*\)\s*)?((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit))(?:\(\w+\))?:(?:\s|$)`

# The lines a wrapper line covers: up to the next wrapper, at most 80 (a
# job's log tail: 400).
_window(t, i) := [l |
	some j, l in t.lines
	j > i
	j <= i + _span(t.lines[i])
	not _wrapper_between(t, i, j)
]

_span(l) := 400 if contains(l, "Job entrypoint command failed")

else := 80

_wrapper_between(t, i, j) if {
	some k, l in t.lines
	k > i
	k <= j
	regex.match(_wrapper, l)
}

_wrappers contains w if {
	some h in ray.text_hits({"wrapper": _wrapper})
	some t in ray.texts
	t.file == h.file
	t.pod == h.pod
	lines := array.concat([h.text], _window(t, h.line - 1))
	not _innermost_elsewhere(lines)
	w := object.union(h, {"lines": lines})
}

# The last exception of the window decides: when it is another rule's
# (an actor death, a memory kill), that rule's finding stands alone.
_innermost_elsewhere(lines) if {
	es := [l | some l in lines; regex.match(_exception, l)]
	count(es) > 0
	regex.match(_elsewhere, es[count(es) - 1])
}

# The wrapped error's own lines decide, from the last traceback of the
# window on (a long log tail mentions many things before it); the wrapper
# line's type (the X of RayTaskError(X)) only when they say nothing known.
_category(lines) := c if {
	c := _known(_decisive(lines))
} else := c if {
	c := _known([lines[0]])
} else := ["exec.python-error", l] if {
	es := [l | some l in lines; regex.match(_exception, l)]
	count(es) > 0
	l := es[count(es) - 1]
}

_decisive(lines) := array.slice(lines, max(is), count(lines)) if {
	is := [j | some j, l in lines; j > 0; contains(l, "Traceback (most recent call last)")]
	count(is) > 0
} else := array.slice(lines, 1, count(lines))

_known(lines) := [k[0], l] if {
	found := [[k, l] |
		some k in _inner
		some l in lines
		regex.match(k[1], l)
	]
	count(found) > 0
	[k, l] := found[0]
}

_wrapper_name(t) := ["task", "任务"] if {
	contains(t, "RayTaskError")
} else := ["trial", "试验"] if {
	regex.match(`^Trial |Trial task failed`, t)
} else := ["job", "作业"] if {
	contains(t, "Job entrypoint command failed")
} else := ["training run", "训练"]

_error(l) := trim_space(l) if count(l) <= 240

else := concat("", [substring(trim_space(l), 0, 237), "..."])

# One finding per chain of wrappers, from its innermost wrapper.
findings contains f if {
	some w in _wrappers
	not _nested(w)
	c := _category(w.lines)
	inner := {"pod": w.pod, "file": w.file, "line": w.line + _offset(w.lines, c[1]), "id": "inner", "text": trim_space(c[1]), "before": [w.text], "after": []}
	f := {
		"subject": _subject(w, c[1]),
		"category": c[0],
		"params": {"wrapper": _wrapper_name(w.text)[0], "wrapper_zh": _wrapper_name(w.text)[1], "error": _error(c[1])},
		"evidence": _evidence(w, inner),
		"time": "",
	}
}

# Wrappers nest (RayTaskError inside RayTaskError inside a job's log
# tail); each window ends at the next wrapper, so an outer one only knows
# the type its header names. The innermost wrapper of a chain holds the
# wrapped error and the failing worker's header: an outer wrapper followed,
# within its reach, by one of the same category is the same failure.
_nested(w) if {
	some o in _wrappers
	o.file == w.file
	o.pod == w.pod
	o.line > w.line
	o.line - w.line <= _span(w.text)
	_category(o.lines)[0] == _category(w.lines)[0]
}

_offset(lines, l) := min([i | some i, x in lines; x == l])

# The worker the innermost task header up to the wrapped error names
# ("ray::RayTrainWorker.train() (pid=2211, ip=10.244.5.31"): outer headers
# name the tasks that waited for it. Else the wrapper's own pod or job.
_subject(w, decisive) := ray.text_subject(xs[count(xs) - 1]) if {
	idx := _offset(w.lines, decisive)
	xs := [{"text": l, "before": [], "after": [], "pod": w.pod} |
		some i, l in w.lines
		i <= idx
		ray.line_ip(l)
	]
	count(xs) > 0
} else := ray.text_subject(w)

_evidence(w, inner) := [ray.text_evidence(w)] if inner.text == w.text

else := [ray.text_evidence(w), ray.text_evidence(inner)]
