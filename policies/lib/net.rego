# METADATA
# title: Helpers about the job's network fabric
# description: |
#   What the distributed-networking rules (NCCL errors and timeouts, EFA
#   and RDMA fallback, rendezvous) need to know about where a job runs:
#   whether its collectives cross nodes, which fabric its pods request or
#   its nodes offer, and which transport NCCL reported. This package emits
#   no findings.
package traindoc.lib.net

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Launchers (mpirun, a DeepSpeed launcher) start the ranks but take no part
# in the collectives.
launcher(pod) if lower(object.get(pod, "replicaType", "")) == "launcher"

_launcher_group(r) if lower(object.get(r, "type", "")) == "launcher"

# training_nodes are the nodes the job's training pods ran on.
training_nodes contains n if {
	some pod in input.pods
	not launcher(pod)
	n := object.get(pod, "nodeName", "")
	n != ""
}

_training_replicas := sum([object.get(r, "expected", 0) |
	some r in object.get(input, "replicas", [])
	not _launcher_group(r)
])

_training_pods := count([pod | some pod in input.pods; not launcher(pod)])

# multi_node holds when the job's collectives cross pods, so NCCL needs a
# network transport. Every pod has its own hostname, so NCCL treats two
# pods as two nodes even when they share a machine.
multi_node if count(training_nodes) > 1

multi_node if _training_replicas > 1

multi_node if _training_pods > 1

# efa_requested holds when a replica asks for vpc.amazonaws.com/efa.
efa_requested if {
	some r in object.get(input, "replicas", [])
	object.get(r, ["template", "efa"], 0) > 0
}

# efa_on_nodes holds when a node the job ran on offers EFA devices.
efa_on_nodes if {
	some n in object.get(input, "nodes", [])
	object.get(n, "efa", 0) > 0
}

# efa_expected: EFA is requested by the spec or present on the nodes.
efa_expected if efa_requested

efa_expected if efa_on_nodes

# rdma_requested holds when a replica asks for an RDMA device (rdma/*,
# nvidia.com/hostdev, nvidia.com/rdma).
rdma_requested if {
	some r in object.get(input, "replicas", [])
	object.get(r, ["template", "rdma"], 0) > 0
}

# rdma_on_nodes are the RDMA device resources the job's nodes offer, e.g.
# "rdma/rdma_shared_device_a".
rdma_on_nodes contains k if {
	some n in object.get(input, "nodes", [])
	some k, v in object.get(n, "capacity", {})
	_rdma_resource(k)
	v != "0"
}

_rdma_resource(k) if startswith(k, "rdma/")

_rdma_resource(k) if startswith(k, "nvidia.com/hostdev")

_rdma_resource(k) if startswith(k, "nvidia.com/rdma")

# pod_requests_rdma holds when the pod's own containers ask for an RDMA
# device.
pod_requests_rdma(pod) if {
	some c in k8s.containers(pod)
	some k, _ in object.union(object.get(c, "requests", {}), object.get(c, "limits", {}))
	_rdma_resource(k)
}

# pod_requests_efa holds when the pod's own containers ask for EFA.
pod_requests_efa(pod) if {
	some c in k8s.containers(pod)
	some k, _ in object.union(object.get(c, "requests", {}), object.get(c, "limits", {}))
	k == "vpc.amazonaws.com/efa"
}

# matched(c, id) holds when signature id matched anywhere in the
# container's logs, relevant or not: transport selection happens once at
# start-up and stays true for the life of the process.
matched(c, id) if {
	some lf in exec.scanned(c)
	lf.matches[id]
}

# any_matched(id) holds when signature id matched in any container of the
# job.
any_matched(id) if {
	some pod in input.pods
	some c in k8s.containers(pod)
	matched(c, id)
}
