package traindoc.rules.exec.efa_fallback_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.efa_fallback

_m(text) := {"count": 8, "firstLine": 20, "lastLine": 40, "samples": [{"line": 20, "text": text}]}

# Not lib/testing's pod: several pods per case, each on a node of its own:
# the rule compares pods and nodes.
_pod(name, matches) := {
	"name": name, "namespace": "ml", "phase": "Running", "conditions": [], "nodeName": sprintf("node-%s", [name]),
	"containers": [{
		"name": "ray-worker", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
		"logs": [{"file": sprintf("logs/%s/ray-worker.log", [name]), "previous": false, "lines": 100, "matches": matches, "tail": []}],
	}],
}

_socket := "(RayTrainWorker pid=812, ip=10.0.3.7) ip-10-0-3-7:812:990 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.3.7<0>"

_ofi_failed := "ip-10-36-29-253:86:2554 [0] nccl_net_ofi_create_plugin:335 NCCL WARN NET/OFI aws-ofi-nccl initialization failed"

_efa_replicas := [{"type": "worker", "expected": 2, "template": {"efa": 4, "rdma": 0}}]

test_fires_when_efa_requested_and_socket_used if {
	inp := {"phase": "Running", "replicas": _efa_replicas, "nodes": [], "pods": [_pod("w-0", {"net.nccl-socket": _m(_socket)}), _pod("w-1", {})]}
	fs := efa_fallback.findings with input as inp
	count(fs) == 1
	some f in fs
	f.params == {"fabric": "EFA", "detail": {"en": "NCCL selected the socket transport", "zh": "NCCL 选择了 socket 传输"}}
	f.severity == "warning"
}

# The plugin's own failure is the better evidence, whatever its order.
test_fires_with_plugin_failure_first if {
	inp := {"phase": "Failed", "replicas": _efa_replicas, "nodes": [], "pods": [_pod("w-0", {"net.nccl-socket": _m(_socket), "net.ofi-init-failed": _m(_ofi_failed)}), _pod("w-1", {})]}
	fs := efa_fallback.findings with input as inp
	some f in fs
	f.params.detail.en == "aws-ofi-nccl could not initialise EFA"
	f.evidence[0].text == _ofi_failed
	f.severity == "error"
}

# EFA on the nodes is enough, even when the spec does not ask for it.
test_fires_when_nodes_have_efa if {
	nodes := [{"name": "n1", "efa": 32}, {"name": "n2", "efa": 32}]
	reps := [{"type": "worker", "expected": 2, "template": {"efa": 0}}]
	inp := {"phase": "Failed", "replicas": reps, "nodes": nodes, "pods": [_pod("w-0", {"net.ofi-init-failed": _m(_ofi_failed)}), _pod("w-1", {})]}
	count(efa_fallback.findings) == 1 with input as inp
}

# A container whose NCCL selected EFA is fine, even with a failed probe
# logged before.
test_quiet_when_efa_selected_in_the_container if {
	ofi := _m("ip-10-0-3-8:79:2547 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 32 nics)")
	inp := {"phase": "Running", "replicas": _efa_replicas, "nodes": [], "pods": [_pod("w-0", {"net.ofi-init-failed": _m(_ofi_failed), "net.ofi-efa": ofi}), _pod("w-1", {"net.ofi-efa": ofi})]}
	count(efa_fallback.findings) == 0 with input as inp
}

# One process on one node: NCCL needs no network, the OFI warning is noise.
test_quiet_on_a_single_node if {
	reps := [{"type": "master", "expected": 1, "template": {"efa": 4}}]
	inp := {"phase": "Failed", "replicas": reps, "nodes": [{"name": "n1", "efa": 4}], "pods": [_pod("m-0", {"net.ofi-init-failed": _m(_ofi_failed), "net.nccl-socket": _m(_socket)})]}
	count(efa_fallback.findings) == 0 with input as inp
}

# A missing plugin on a cluster without EFA or RDMA is harmless.
test_quiet_without_fabric if {
	inp := {"phase": "Failed", "replicas": [{"type": "worker", "expected": 2, "template": {"efa": 0}}], "nodes": [{"name": "n1", "efa": 0}], "pods": [_pod("w-0", {"net.plugin-missing": _m("NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."), "net.nccl-socket": _m(_socket)}), _pod("w-1", {})]}
	count(efa_fallback.findings) == 0 with input as inp
}

# RDMA requested but no IB device inside the pod: NCCL used sockets.
test_fires_for_rdma_without_device if {
	reps := [{"type": "worker", "expected": 2, "template": {"efa": 0, "rdma": 1}}]
	inp := {"phase": "Failed", "replicas": reps, "nodes": [], "pods": [_pod("w-0", {"net.ib-no-device": _m("trainer-w-0:88:160 [0] NCCL INFO NET/IB : No device found."), "net.nccl-socket": _m(_socket)}), _pod("w-1", {})]}
	fs := efa_fallback.findings with input as inp
	some f in fs
	f.params == {"fabric": "RDMA (InfiniBand/RoCE)", "detail": {"en": "NCCL found no InfiniBand/RoCE device", "zh": "NCCL 没有找到 InfiniBand/RoCE 设备"}}
}

# An MPIJob launcher forwards the ranks' output: the finding is about the
# worker pods where the ranks ran, not the launcher.
test_fires_launcher_log_names_the_workers if {
	launcher := object.union(_pod("job-launcher", {"net.ofi-init-failed": _m(_ofi_failed), "net.nccl-socket": _m(_socket)}), {"replicaType": "launcher"})
	w0 := object.union(_pod("job-worker-0", {}), {"replicaType": "worker"})
	w1 := object.union(_pod("job-worker-1", {}), {"replicaType": "worker"})
	inp := {"phase": "Running", "kind": "MPIJob", "replicas": [{"type": "worker", "expected": 2, "template": {"efa": 4}}], "nodes": [], "pods": [launcher, w0, w1]}
	names := {f.subject.name | some f in efa_fallback.findings} with input as inp
	names == {"job-worker-0", "job-worker-1"}
}

test_quiet_in_succeeded_job if {
	inp := {"phase": "Succeeded", "replicas": _efa_replicas, "nodes": [], "pods": [_pod("w-0", {"net.nccl-socket": _m(_socket)}), _pod("w-1", {})]}
	count(efa_fallback.findings) == 0 with input as inp
}

test_fires_signatures if {
	regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-efa"), "ip-10-36-29-253:79:2547 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)")
	regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-efa"), "NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)")
	regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-efa"), "llama3-70b-sft-worker-2:139:219 [0] NCCL INFO Channel 00/0 : 23[7] -> 24[0] [receive] via NET/Libfabric/0/GDRDMA")
	regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-socket"), "zkti:702444:702444 [0] NCCL INFO Using network Socket")
	regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-socket"), "node:919:1150 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [receive] via NET/Socket/0")
	regex.match(testing.pattern(efa_fallback.signatures, "net.plugin-missing"), "NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
	regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-init-failed"), _ofi_failed)
	regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-init-failed"), "[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available")
	regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-init-failed"), "libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list")
	regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-ib"), "nccl-sleep:2620971:2620971 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:172.25.30.42<0>")
	regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-ib"), "ai-worker01:5771:5783 [0] NCCL INFO Using network IBext_v8")
	not regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-socket"), "NCCL INFO Bootstrap : Using eth0:10.0.3.7<0>")
	not regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-init-failed"), "NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 32 nics)")
}

# One rank of the pod selected EFA, another fell back to sockets: the job's
# collectives run at the slower rank's speed.
test_fires_when_one_rank_fell_back_after_another_selected_efa if {
	ofi := _m("ip-10-36-29-253:79:2547 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)")
	chosen := _m("ip-10-36-29-253:86:2554 [0] NCCL INFO Using network Socket")
	inp := {"phase": "Failed", "replicas": _efa_replicas, "nodes": [], "pods": [_pod("w-0", {"net.ofi-efa": ofi, "net.ofi-init-failed": _m(_ofi_failed), "net.nccl-socket-chosen": chosen, "net.nccl-socket": chosen}), _pod("w-1", {"net.ofi-efa": ofi})]}
	fs := efa_fallback.findings with input as inp
	count(fs) == 1
	some f in fs
	f.subject.name == "w-0"
	f.params.detail.en == "aws-ofi-nccl could not initialise EFA"
}

test_fires_signatures_plugin_load_failures if {
	p := testing.pattern(efa_fallback.signatures, "net.plugin-missing")
	regex.match(p, "[0] NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found (required by /opt/conda/lib/libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation")
	regex.match(p, "fsdp-worker-1:73:73 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so")
	not regex.match(p, "ip-10-36-29-253:79:79 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.")
	regex.match(testing.pattern(efa_fallback.signatures, "net.ofi-init-failed"), "ip-10-1-2-3:80:80 [0] nccl_net_ofi_create_plugin:622 NCCL WARN NET/OFI EFA provider requires at least libfabric version 1.22.0.")
	not regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-socket-chosen"), "algo-1:17780:17851 [7] NCCL INFO NET/Socket : Using [0]eth0:10.0.227.37<0>")
}

# NCCL 2.24+ names the net plugin it initialised and the one each
# communicator got.
test_fires_signatures_newer_nccl_wordings if {
	regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-socket-chosen"), "nccl-benchmark-csgjr:1:1 [0] NCCL INFO Assigned NET plugin Socket to comm")
	regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-socket"), "nccl-benchmark-csgjr:1:1 [0] NCCL INFO Initialized NET plugin Socket")
	not regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-socket-chosen"), "nccl-benchmark-csgjr:1:1 [0] NCCL INFO Initialized NET plugin Socket")
	regex.match(testing.pattern(efa_fallback.signatures, "net.ib-no-device"), "nccl-benchmark-csgjr:1:1 [0] NCCL INFO Failed to initialize NET plugin IB")
	not regex.match(testing.pattern(efa_fallback.signatures, "net.nccl-ib"), "NCCL INFO NET/IB : Using [RO]; OOB eth0:172.19.2.2<0>")
}
