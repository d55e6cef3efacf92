# METADATA
# title: Not enough CPU, memory or other resources to schedule the job
# description: |
#   The scheduler found no node with enough free CPU, memory, ephemeral
#   storage, hugepages, network devices (EFA, RDMA), host ports or pod slots
#   for the job's pods, so they stay Pending. GPUs are reported by their own
#   rule; pods scheduled since are not counted, and a gang or queue that
#   holds the whole job is reported as such.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.pods}} pod(s) cannot be scheduled: no node has enough {{.resources}}. Scheduler: {{.detail}}"
#     zh: "{{.pods}} 个 Pod 无法调度：没有节点有足够的 {{.resources}}。调度器：{{.detail}}"
#   remediation:
#     en: |
#       - Compare the pod's requests with what one node can still offer: `kubectl describe node <node>` (Allocatable and Allocated resources).
#       - If a single node can never fit the pod, lower the requests (CPU, memory, hugepages) or move to a larger node type.
#       - For `vpc.amazonaws.com/efa` or `rdma/*`, check the device plugin runs on the GPU nodes and advertises the devices, and that the pod does not ask for more than a node has.
#       - "didn't have free ports": drop `hostPort` or `hostNetwork` ports that collide with other pods. "Too many pods": the node reached its pod limit.
#       - If the cluster is just full, wait, free capacity, or let the cluster autoscaler add nodes.
#     zh: |
#       - 对比 Pod 的资源请求与单个节点还能提供的资源：`kubectl describe node <node>`（查看 Allocatable 和 Allocated resources）。
#       - 如果单个节点永远放不下该 Pod，请降低请求量（CPU、内存、hugepages），或改用更大的机型。
#       - 对于 `vpc.amazonaws.com/efa` 或 `rdma/*`，确认 GPU 节点上的设备插件正常运行并上报了设备，且 Pod 申请的数量不超过单节点拥有的数量。
#       - "didn't have free ports"：去掉与其他 Pod 冲突的 `hostPort` 或 `hostNetwork` 端口。"Too many pods"：节点已达到 Pod 数量上限。
#       - 如果只是集群已满，请等待、释放资源，或由集群自动扩缩容增加节点。
#   zh:
#     title: CPU、内存或其他资源不足，作业无法调度
#     description: |
#       调度器找不到有足够空闲 CPU、内存、临时存储、hugepages、网络设备（EFA、RDMA）、主机端口或 Pod 名额的节点，作业的 Pod 一直处于 Pending。GPU 不足由单独的规则报告；之后已被调度的 Pod 不计在内，Gang 调度器或队列在整体上挡住作业时按排队等待报告。
package traindoc.rules.sched.insufficient_resources

import data.traindoc.lib.capacity
import data.traindoc.lib.sched

# _resources(msg) are the non-accelerator resources a scheduler message
# says are short (lib/capacity splits "Insufficient <resource>" with the
# insufficient-gpu rule), in the wordings of several versions: free host
# ports, the pod limit, attachable volumes.
_resources(msg) := ((capacity.others_short(msg) | {"host ports" | regex.match(`(?i)didn't have free ports|PodFitsHostPorts`, msg)}) | {"pods" | regex.match(`Too many pods`, msg)}) | {"attachable volumes" | regex.match(`exceed max volume count`, msg)}

_hits contains m if {
	not sched.gang_hold
	some m in sched.messages
	not sched.is_gang(m.text)
	count(_resources(m.text)) > 0
}

_first := sort([[m.time, m.text] | some m in _hits])[0][1]

_params := {
	"pods": count({m.pod | some m in _hits}),
	"resources": concat(", ", sort({r | some m in _hits; some r in _resources(m.text)})),
	"detail": sched.short(_first),
}

findings contains f if {
	some m in _hits
	f := {
		"subject": {"kind": "Pod", "name": m.pod},
		"params": _params,
		"evidence": [m.evidence],
		"time": m.time,
	}
}
