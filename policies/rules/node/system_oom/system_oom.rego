# METADATA
# title: The node ran out of memory and the kernel killed a training process
# description: |
#   The kubelet reported "System OOM encountered, victim process: ..." (a
#   SystemOOM event on the node) while a pod of the job ran there, and a
#   container of that pod then failed without the kubelet marking it
#   OOMKilled: the node as a whole ran out of memory (pods without memory
#   limits, page cache of data loaders, other pods), and the kernel's OOM
#   killer chose a process of the job. The container's own OOMKilled reason
#   and in-log kill messages are reported by the host-memory rule; this one
#   covers the kill only the node saw.
# custom:
#   category: exec.oom-killed
#   severity: error
#   owner: platform
#   message:
#     en: "Node {{.node}} ran out of memory and the kernel killed {{.victim}} (pid {{.pid}}) in this job's container."
#     zh: "节点 {{.node}} 内存耗尽，内核杀死了本作业容器中的 {{.victim}}（pid {{.pid}}）。"
#   remediation:
#     en: |
#       - Give every pod on the node a memory limit and a request equal to it, so that the node cannot be overcommitted; training pods should be Guaranteed.
#       - Reduce host memory use: fewer DataLoader workers, smaller prefetch, no full dataset in RAM, CPU offload sized for the node.
#       - Check what else ran on the node at that time (`kubectl describe node <node>`, node memory metrics) and reserve memory for the system (`--system-reserved`, `--kube-reserved`).
#     zh: |
#       - 为节点上的每个 Pod 设置内存上限，并让请求等于上限，避免节点被超额分配；训练 Pod 应为 Guaranteed 级别。
#       - 降低主机内存占用：减少 DataLoader worker 数和预取量，不要把整个数据集读入内存，CPU offload 的规模要与节点内存相符。
#       - 查看当时节点上还运行了什么（`kubectl describe node <node>`、节点内存监控），并为系统预留内存（`--system-reserved`、`--kube-reserved`）。
#   zh:
#     title: 节点内存耗尽，内核杀死了训练进程
#     description: |
#       在作业的 Pod 运行期间，kubelet 报告 "System OOM encountered, victim process: ..."（节点上的 SystemOOM 事件），随后该 Pod 的某个容器失败，而 kubelet 并未将其标记为 OOMKilled：整个节点的内存耗尽（没有内存上限的 Pod、数据加载器的页缓存、其他 Pod），内核的 OOM killer 选中了作业的进程。容器自身的 OOMKilled 原因和日志中的杀进程信息由主机内存规则报告；本规则只覆盖只有节点看到的那次终止。
package traindoc.rules.node.system_oom

import data.traindoc.lib.k8s

# Kill messages in the logs that the host-memory rule reads itself.
_log_ids := {"launcher.sigkill", "launcher.shell-killed", "exec.oom-killed.kernel", "exec.oom-killed.ray", "exec.oom-killed.dataloader"}

findings contains f if {
	input.phase != "Succeeded"
	some e in object.get(input, "events", [])
	e.object.kind == "Node"
	e.reason == "SystemOOM"
	some pod in input.pods
	object.get(pod, "nodeName", "") == e.object.name
	some c in k8s.containers(pod)
	s := k8s.terminated(c)
	k8s.exit_code(s) != 0
	object.get(s, "reason", "") != "OOMKilled"
	not _killed_in_log(c)
	_within(pod, s, e)
	v := _victim(e.message)
	f := {
		"subject": {"kind": "Pod", "name": pod.name, "container": c.name},
		"params": {"node": e.object.name, "victim": v[0], "pid": v[1]},
		"evidence": [k8s.event_evidence(e), k8s.state_evidence(pod, c, _which(c, s), s)],
		"time": k8s.event_time(e),
	}
}

_which(c, s) := "state" if s == c.state

else := "lastState"

_killed_in_log(c) if {
	some lf in object.get(c, "logs", [])
	some id in _log_ids
	lf.matches[id]
}

# The OOM happened while the container ran: after the pod started and no
# later than a minute after the container ended.
_within(pod, s, e) if {
	t := time.parse_rfc3339_ns(k8s.event_time(e))
	t >= time.parse_rfc3339_ns(pod.startTime)
	t <= time.parse_rfc3339_ns(s.finishedAt) + 60000000000
}

# "System OOM encountered, victim process: python, pid: 2034521"
_victim(msg) := [m[0][1], m[0][2]] if {
	m := regex.find_all_string_submatch_n(`victim process: ([^,]+), pid: (\d+)`, msg, 1)
	count(m) == 1
} else := ["a process", "?"]
