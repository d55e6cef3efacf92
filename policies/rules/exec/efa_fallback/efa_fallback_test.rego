package traindoc.rules.exec.efa_fallback_test

import data.traindoc.rules.exec.efa_fallback

_m(text) := {"count": 8, "firstLine": 20, "lastLine": 40, "samples": [{"line": 20, "text": text}]}

_pod(name, matches) := {
	"name": name, "namespace": "ml", "phase": "Running", "conditions": [],
	"containers": [{
		"name": "ray-worker", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
		"logs": [{"file": sprintf("logs/%s/ray-worker.log", [name]), "previous": false, "lines": 100, "matches": matches, "tail": []}],
	}],
}

_socket := "(RayTrainWorker pid=812, ip=10.0.3.7) ip-10-0-3-7:812:990 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.3.7<0>"

_efa_replicas := [{"type": "worker", "template": {"efa": 4, "rdma": 0}}]

test_fires_when_efa_requested_and_socket_used if {
	inp := {"phase": "Running", "replicas": _efa_replicas, "nodes": [], "pods": [_pod("w-0", {"net.nccl-socket": _m(_socket)})]}
	fs := efa_fallback.findings with input as inp
	count(fs) == 1
	some f in fs
	f.params == {"fabric": "EFA", "detail": "NCCL selected the socket transport"}
	f.severity == "warning"
}

test_not_when_efa_selected_elsewhere if {
	ofi := _m("ip-10-0-3-8:79:2547 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 32 nics)")
	inp := {"phase": "Running", "replicas": _efa_replicas, "nodes": [], "pods": [_pod("w-0", {"net.nccl-socket": _m(_socket)}), _pod("w-1", {"net.ofi-efa": ofi})]}
	count(efa_fallback.findings) == 0 with input as inp
}

# A missing plugin on a cluster without EFA or RDMA is harmless.
test_not_without_fabric if {
	inp := {"phase": "Failed", "replicas": [{"type": "worker", "template": {"efa": 0}}], "nodes": [{"name": "n1", "efa": 0}], "pods": [_pod("w-0", {"net.plugin-missing": _m("NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."), "net.nccl-socket": _m(_socket)})]}
	count(efa_fallback.findings) == 0 with input as inp
}

_re(id) := s.pattern if {
	some s in efa_fallback.signatures
	s.id == id
}

test_signatures if {
	regex.match(_re("net.ofi-efa"), "ip-10-36-29-253:79:2547 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)")
	regex.match(_re("net.ofi-efa"), "NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)")
	regex.match(_re("net.nccl-socket"), "zkti:702444:702444 [0] NCCL INFO Using network Socket")
	regex.match(_re("net.plugin-missing"), "NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
	regex.match(_re("net.plugin-missing"), "NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory")
	regex.match(_re("exec.efa-fallback.ofi-init"), "ip-10-36-29-253:79:2547 [0] nccl_net_ofi_create_plugin:335 NCCL WARN NET/OFI aws-ofi-nccl initialization failed")
	regex.match(_re("net.nccl-ib"), "nccl-sleep:2620971:2620971 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:172.25.30.42<0>")
	not regex.match(_re("net.nccl-socket"), "NCCL INFO Bootstrap : Using eth0:10.0.3.7<0>")
}
