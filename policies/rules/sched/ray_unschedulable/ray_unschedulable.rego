# METADATA
# title: The Ray cluster cannot fit what the job asks for
# description: |
#   Ray itself cannot place the job's tasks, actors or placement groups: the
#   autoscaler says no node type can ever fulfil the request ("No available
#   node types can fulfill resource request {'GPU': 8.0, 'CPU': 8.0}"), Tune
#   says a trial asks for more than the cluster has ("You asked for 9.0 cpu
#   and 8.0 gpu per trial, but the cluster only has 96.0 cpu and 0 gpu"), or
#   the request keeps waiting ("cannot be scheduled right now", `ray status`
#   demands) while the cluster lacks the resource. The pods may all be
#   Running: the Ray cluster is too small, or its GPUs are not where the
#   request can use them (a head started with num-gpus 0, a worker group
#   without GPUs, a placement group that must fit on one node).
# custom:
#   category: sched.insufficient-gpu
#   severity: error
#   owner: user
#   message:
#     en: "Ray cannot schedule {{.request}}: {{.why}}."
#     zh: "Ray 无法调度 {{.request}}：{{.why_zh}}。"
#   remediation:
#     en: |
#       - Compare the request with `ray status` (Resources, Demands): the cluster must have one node, or one placement-group bundle's worth of a node, with that many GPUs and CPUs free.
#       - Make the worker groups match the request: `nvidia.com/gpu` limits and `rayStartParams.num-gpus` of a group, and `replicas`/`maxReplicas` so the autoscaler can add nodes; a `STRICT_PACK` placement group needs all bundles on one node.
#       - Or ask for less: `ScalingConfig(num_workers=..., resources_per_worker=...)`, `num_gpus=` of actors, verl's `trainer.n_gpus_per_node` and `trainer.nnodes`.
#       - A driver started with `ray job submit` runs on the head; GPUs must be requested by the tasks and actors it creates, not used by the driver itself.
#     zh: |
#       - 将请求与 `ray status`（Resources、Demands）对比：集群中必须有一个节点（或放置组一个 bundle 所需的节点）空闲着这么多 GPU 和 CPU。
#       - 让 worker 组与请求匹配：组的 `nvidia.com/gpu` 上限和 `rayStartParams.num-gpus`，以及 `replicas`/`maxReplicas`，使 autoscaler 能够增加节点；`STRICT_PACK` 放置组要求所有 bundle 在同一节点上。
#       - 或者减少请求：`ScalingConfig(num_workers=..., resources_per_worker=...)`、actor 的 `num_gpus=`、verl 的 `trainer.n_gpus_per_node` 和 `trainer.nnodes`。
#       - 用 `ray job submit` 启动的 driver 运行在 head 上；GPU 应由它创建的任务和 actor 申请，而不是由 driver 自己使用。
#   zh:
#     title: Ray 集群容纳不下作业请求的资源
#     description: |
#       Ray 自身无法放置作业的任务、actor 或放置组：autoscaler 报告没有任何节点类型能满足请求（"No available node types can fulfill resource request {'GPU': 8.0, 'CPU': 8.0}"），Tune 报告试验请求的资源超过集群拥有的（"You asked for 9.0 cpu and 8.0 gpu per trial, but the cluster only has 96.0 cpu and 0 gpu"），或者请求一直在等待（"cannot be scheduled right now"、`ray status` 中的 demands）而集群缺少该资源。Pod 可能全部处于 Running：Ray 集群太小，或者它的 GPU 不在请求能使用的地方（以 num-gpus 0 启动的 head、没有 GPU 的 worker 组、必须放在同一节点上的放置组）。
package traindoc.rules.sched.ray_unschedulable

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# No node type can ever fulfil the request (autoscaler, Ray ≥ 1.x).
signatures contains {
	"id": "ctx.ray-sched.infeasible",
	"pattern": `No available node types can fulfill resource request`,
}

# Tune's and Train's insufficient-resources report (1.x TuneError; 2.x
# warning "You asked for 113.0 CPUs and 16.0 GPUs, but the cluster only
# has 4.0 CPUs and 0 GPUs available").
signatures contains {
	"id": "ctx.ray-sched.tune",
	"pattern": `You asked for [\d.]+ (?:cpu|CPUs) and [\d.]+ (?:gpu|GPUs)(?: per trial)?, but the cluster only has|Insufficient cluster resources to launch trial`,
}

# A request that waits; it often resolves (autoscaling, an actor that
# finishes), so it counts only when it repeats, the job failed, or `ray
# status` still shows the demand. Ray 1.x-2.0's autoscaler said "could not
# find a node type to satisfy the request" also for placement-group bundle
# resources ("bundle_group_..."), which resolve themselves; only a request
# for named resources (CPU, GPU, memory, ...) counts. vLLM waits for its
# placement group with "Waiting for creating a placement group of specs".
signatures contains {
	"id": "ctx.ray-sched.pending",
	"pattern": `The following resource request cannot be scheduled right now|cannot be scheduled right now\. (?:It requires|You can ignore)|is pending and cannot currently be scheduled|The autoscaler could not find a node type to satisfy the request: \[\{'[A-Z]|Waiting for creating a placement group of specs for \d+ seconds`,
}

_gpu_asked(t) := to_number(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`'GPU': ([\d.]+)|\{GPU: ([\d.]+)`, t, 1)
	count(m) > 0
	m[0][1] != ""
} else := to_number(m[0][2]) if {
	m := regex.find_all_string_submatch_n(`'GPU': ([\d.]+)|\{GPU: ([\d.]+)`, t, 1)
	count(m) > 0
} else := to_number(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`and ([\d.]+) (?:gpu|GPUs)(?: per trial)?, but|, ([\d.]+) GPUs but the cluster`, t, 1)
	count(m) > 0
	m[0][1] != ""
} else := to_number(m[0][2]) if {
	m := regex.find_all_string_submatch_n(`and ([\d.]+) (?:gpu|GPUs)(?: per trial)?, but|, ([\d.]+) GPUs but the cluster`, t, 1)
	count(m) > 0
} else := 0

# The GPUs a message says the cluster has, or -1.
_gpu_have(t) := to_number(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`cluster only has [\d.]+ (?:cpu|CPUs) and ([\d.]+) (?:gpu|GPUs)|cluster has only \d+ CPUs, (\d+) GPUs`, t, 1)
	count(m) > 0
	m[0][1] != ""
} else := to_number(m[0][2]) if {
	m := regex.find_all_string_submatch_n(`cluster only has [\d.]+ (?:cpu|CPUs) and ([\d.]+) (?:gpu|GPUs)|cluster has only \d+ CPUs, (\d+) GPUs`, t, 1)
	count(m) > 0
} else := -1

_request(t) := m[0][0] if {
	m := regex.find_all_string_submatch_n(`\{[^{}]*\}`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`You asked for ([\d.]+ \w+ and [\d.]+ \w+)`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`trial requested ([\d.]+ CPUs, [\d.]+ GPUs)`, t, 1)
	count(m) > 0
} else := "the request"

# GPUs the Ray cluster reports, from any pod's `ray status`.
_status := rs if {
	rss := [rs | some pod in input.pods; rs := pod.exec.rayStatus]
	count(rss) > 0
	rs := rss[0]
}

_category(t) := "sched.insufficient-gpu" if {
	_gpu_asked(t) > 0
	not _enough_gpus(t)
} else := "sched.insufficient-resources"

_enough_gpus(t) if {
	have := _gpu_have(t)
	have >= 0
	have >= _gpu_asked(t)
}

_why(t, "ctx.ray-sched.infeasible") := ["no node type of the cluster can fulfil it", "集群中没有任何节点类型能满足它"]

_why(t, "ctx.ray-sched.tune") := [sprintf("the cluster has only %v GPU(s)", [_gpu_have(t)]), sprintf("集群只有 %v 个 GPU", [_gpu_have(t)])] if {
	_gpu_have(t) >= 0
	_gpu_have(t) < _gpu_asked(t)
} else := ["the cluster has less than a trial asks for", "集群拥有的资源少于一个试验的请求"]

_why(t, "ctx.ray-sched.pending") := [sprintf("the cluster has %v GPU(s), %v in use", [_status.gpusTotal, _status.gpusUsed]), sprintf("集群有 %v 个 GPU，已使用 %v 个", [_status.gpusTotal, _status.gpusUsed])] if {
	_status
} else := ["the request stays pending", "请求一直处于等待状态"]

# A match with the lines after it: Ray 1.x names the request on the next
# line ("Required resources for this actor or task: {GPU: 1.000000}").
_text(h) := concat(" ", array.concat([s.text], array.slice(object.get(s, "after", []), 0, 2))) if {
	s := h.m.samples[0]
} else := ""

# Pending requests count when Ray keeps repeating them, the container or
# job failed, or `ray status` still lists a demand.
_counts(pod, c, h) if h.id != "ctx.ray-sched.pending"

_counts(_, _, h) if h.m.count >= 3

_counts(pod, c, _) if exec.failed_container(pod, c)

_counts(_, _, _) if input.phase == "Failed"

_counts(_, _, _) if count(object.get(_status, "demands", [])) > 0

_ids := {"ctx.ray-sched.infeasible", "ctx.ray-sched.tune", "ctx.ray-sched.pending"}

_order := ["ctx.ray-sched.infeasible", "ctx.ray-sched.tune", "ctx.ray-sched.pending"]

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not _echo(c)
	hs := [h | some h in exec.hits(pod, c, _ids); _counts(pod, c, h)]
	count(hs) > 0
	id := [x | some x in _order; some h in hs; h.id == x][0]
	best := [h | some h in hs; h.id == id][0]
	t := _text(best)
	why := _why(t, id)
	f := {
		"subject": exec.subject(pod, c),
		"category": _category(t),
		"params": {"request": _request(t), "why": why[0], "why_zh": why[1]},
		"evidence": exec.evidence(pod, c, array.concat([best], [h | some h in hs; h != best])),
		"time": exec.hit_time(c, best),
	}
}

# `ray status` lists a GPU demand the cluster cannot fit, with no node
# being launched for it.
findings contains f if {
	not input.phase in {"Succeeded", "Suspended"}
	some pod in input.pods
	rs := pod.exec.rayStatus
	object.get(rs, "pendingNodes", 0) == 0
	some d in object.get(rs, "demands", [])
	need := _gpu_asked(d) * _bundles(d)
	need > 0
	rs.gpusTotal - rs.gpusUsed < need
	not _log_finding
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {
			"request": _request(d),
			"why": sprintf("the cluster has %v GPU(s), %v in use", [rs.gpusTotal, rs.gpusUsed]),
			"why_zh": sprintf("集群有 %v 个 GPU，已使用 %v 个", [rs.gpusTotal, rs.gpusUsed]),
		},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s ray status", [pod.name]),
			"object": k8s.pod_ref(pod),
			"file": object.get(rs, "file", ""),
			"text": sprintf("Demands: %s; GPUs %v/%v used", [d, rs.gpusUsed, rs.gpusTotal]),
		}],
		"time": "",
	}
}

# KubeRay's autoscaler sidecar logs the demand the driver is told about
# ("(autoscaler +32s) Error: ..."): one request, one finding, on the
# driver when the driver says it.
_echo(c) if {
	c.name == "autoscaler"
	some pod in input.pods
	some other in k8s.containers(pod)
	other.name != "autoscaler"
	some h in exec.hits(pod, other, _ids)
	_counts(pod, other, h)
}

# "{...} * 8 (STRICT_PACK)" is eight bundles.
_bundles(d) := to_number(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`\} \* (\d+)`, d, 1)
	count(m) > 0
} else := 1

_log_finding if {
	some pod in input.pods
	some c in k8s.containers(pod)
	some h in exec.hits(pod, c, _ids)
	_counts(pod, c, h)
}
