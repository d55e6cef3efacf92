# METADATA
# title: mpirun asks for more processes than the hostfile has slots
# description: |
#   mpirun refused to start: "There are not enough slots available in the
#   system to satisfy the N slots that were requested by the application".
#   The number of processes (-np) is larger than the slots the launcher's
#   hostfile gives, which for an MPIJob is the number of workers times
#   slotsPerWorker. The job cannot start until the two agree.
# custom:
#   category: spec.invalid-replicas
#   severity: error
#   owner: user
#   message:
#     en: "mpirun requested {{.requested}} processes but the hostfile has {{if .available}}{{.available}}{{else}}fewer{{end}} slots{{if .workers}} ({{.workers}} workers x {{.slots}} slots per worker){{end}}."
#     zh: "mpirun 请求 {{.requested}} 个进程，但 hostfile 中只有{{if .available}} {{.available}} {{else}}更少的{{end}}槽位{{if .workers}}（{{.workers}} 个 worker，每个 {{.slots}} 个槽位）{{end}}。"
#   remediation:
#     en: |
#       - Make `-np` equal to the number of workers times `slotsPerWorker` (mpi-operator writes `<worker> slots=<slotsPerWorker>` per worker into /etc/mpi/hostfile), or drop `-np` to let mpirun use every slot.
#       - Set `slotsPerWorker` to the GPUs each worker requests (`nvidia.com/gpu`), and `Worker.replicas` to the number of nodes.
#       - Use `--oversubscribe` only for CPU tests: with GPUs it puts two ranks on one device.
#     zh: |
#       - 让 `-np` 等于 worker 数乘以 `slotsPerWorker`（mpi-operator 会为每个 worker 在 /etc/mpi/hostfile 中写入 `<worker> slots=<slotsPerWorker>`），或去掉 `-np`，让 mpirun 使用全部槽位。
#       - 把 `slotsPerWorker` 设为每个 worker 申请的 GPU 数（`nvidia.com/gpu`），把 `Worker.replicas` 设为节点数。
#       - `--oversubscribe` 只适合 CPU 测试：在 GPU 上会把两个 rank 放到同一块卡上。
#   zh:
#     title: mpirun 请求的进程数超过 hostfile 中的槽位
#     description: |
#       mpirun 拒绝启动："There are not enough slots available in the system to satisfy the N slots that were requested by the application"。进程数（-np）大于启动器 hostfile 提供的槽位数；对 MPIJob 而言，槽位数等于 worker 数乘以 slotsPerWorker。两者一致之前作业无法启动。
package traindoc.rules.node.mpi_slots

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Open MPI 4 and 5 print the number on the first line of the message.
signatures contains {
	"id": "exec.mpi-slots",
	"pattern": `There are not enough slots available in the system to satisfy the (?P<requested>\d+)`,
	"hint": "not enough slots",
}

_workers := w if {
	some g in object.get(input, "replicas", [])
	lower(g.type) == "worker"
	w := g.expected
} else := 0

_slots := object.get(object.get(input, "spec", {}), "procsPerNodeCount", 0)

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, {"exec.mpi-slots"})
	count(hs) > 0
	requested := object.get(object.get(hs[0].m, "groups", {}), "requested", "")
	f := {
		"subject": exec.subject(pod, c),
		"params": _params(requested),
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

_params(requested) := {"requested": requested, "available": _workers * _slots, "workers": _workers, "slots": _slots} if {
	_workers > 0
	_slots > 0
} else := {"requested": requested, "available": 0, "workers": 0, "slots": 0}
