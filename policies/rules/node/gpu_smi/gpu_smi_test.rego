package traindoc.rules.node.gpu_smi_test

import data.traindoc.rules.node.gpu_smi

# Not lib/testing's pod: a pod without containers whose collected command
# output holds the nvidia-smi text.
_pod(name, text) := {
	"name": "w-2", "namespace": "ml", "phase": "Running", "nodeName": "gpu-node-9", "conditions": [], "containers": [],
	"exec": {"other": [{"name": name, "file": sprintf("exec/w-2/%s.txt", [name]), "text": text}]},
}

_q(block) := concat("\n", array.concat(
	[
		"==============NVSMI LOG==============",
		"",
		"Timestamp                                 : Sun Mar  1 10:02:11 2026",
		"Driver Version                            : 550.54.15",
		"Attached GPUs                             : 2",
		"GPU 00000000:18:00.0",
		"    Product Name                          : NVIDIA H100 80GB HBM3",
		"    Remapped Rows",
		"        Correctable Error                 : 0",
		"        Uncorrectable Error               : 0",
		"        Pending                           : No",
		"        Remapping Failure Occurred        : No",
		"GPU 00000000:3B:00.0",
		"    Product Name                          : NVIDIA H100 80GB HBM3",
	],
	block,
))

test_fires_on_pending_remap if {
	text := _q([
		"    Remapped Rows",
		"        Correctable Error                 : 0",
		"        Uncorrectable Error               : 4",
		"        Pending                           : Yes",
		"        Remapping Failure Occurred        : No",
	])
	fs := gpu_smi.findings with input as {"phase": "Running", "pods": [_pod("nvidia-smi-q", text)]}
	count(fs) == 1
	some f in fs
	f.params.gpu == "00000000:3B:00.0"
	f.severity == "warning"
	f.evidence[0].text == "GPU 00000000:3B:00.0: Remapped Rows ... Pending                           : Yes"
}

test_fires_on_remap_failure_over_pending if {
	text := _q([
		"    Remapped Rows",
		"        Correctable Error                 : 0",
		"        Uncorrectable Error               : 8",
		"        Pending                           : Yes",
		"        Remapping Failure Occurred        : Yes",
	])
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [_pod("nvidia-smi-q", text)]}
	some f in fs
	f.severity == "critical"
	count(f.evidence) == 2
}

test_fires_on_thermal_slowdown if {
	text := _q([
		"    Clocks Event Reasons",
		"        Idle                              : Not Active",
		"        SW Power Cap                      : Active",
		"        HW Slowdown                       : Active",
		"            HW Thermal Slowdown           : Active",
		"            HW Power Brake Slowdown       : Not Active",
	])
	fs := gpu_smi.findings with input as {"phase": "Running", "pods": [_pod("nvidia-smi-q", text)]}
	some f in fs
	startswith(f.params.fault.en, "a hardware thermal slowdown")
	startswith(f.params.fault.zh, "硬件过热降频")
	count(f.evidence) == 1
}

test_quiet_on_healthy_query if {
	text := _q([
		"    Clocks Event Reasons",
		"        Idle                              : Not Active",
		"        SW Power Cap                      : Active",
		"        HW Slowdown                       : Not Active",
		"            HW Thermal Slowdown           : Not Active",
		"    Retired Pages",
		"        Single Bit ECC                    : 0",
		"        Double Bit ECC                    : 0",
		"        Pending Page Blacklist            : No",
		"    ECC Errors",
		"        Volatile",
		"            SRAM Correctable              : 0",
		"            SRAM Uncorrectable Parity     : 0",
		"            SRAM Uncorrectable SEC-DED    : 0",
		"            DRAM Correctable              : 12",
		"            DRAM Uncorrectable            : 0",
		"        Aggregate",
		"            DRAM Uncorrectable            : 3",
	])
	count(gpu_smi.findings) == 0 with input as {"phase": "Running", "pods": [_pod("nvidia-smi-q", text)]}
}

test_fires_on_volatile_dbe if {
	text := _q([
		"    ECC Errors",
		"        Volatile",
		"            SRAM Correctable              : 0",
		"            SRAM Uncorrectable Parity     : 0",
		"            SRAM Uncorrectable SEC-DED    : 0",
		"            DRAM Correctable              : 0",
		"            DRAM Uncorrectable            : 2",
	])
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [_pod("nvidia-smi-q", text)]}
	some f in fs
	f.severity == "error"
}

_nvlink(link3) := concat("\n", [
	"GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6e3c1a-9d7b-4e55-8a0c-1b2c3d4e5f60)",
	"\t Link 0: 26.562 GB/s",
	"\t Link 1: 26.562 GB/s",
	"GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-7a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9)",
	"\t Link 0: 26.562 GB/s",
	sprintf("\t Link 1: %s", [link3]),
])

test_fires_on_inactive_nvlink if {
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [_pod("nvidia-smi-nvlink", _nvlink("<inactive>"))]}
	some f in fs
	f.params.gpu == "1"
	f.severity == "error"
}

test_quiet_on_active_nvlinks if {
	count(gpu_smi.findings) == 0 with input as {"phase": "Running", "pods": [_pod("nvidia-smi-nvlink", _nvlink("26.562 GB/s"))]}
}

# A PCIe node without NVLink: every link "inactive", none up.
test_quiet_on_nodes_without_nvlink if {
	text := "GPU 0: NVIDIA L40S (UUID: GPU-11111111-2222-3333-4444-555555555555)\n\t Link 0: <inactive>"
	count(gpu_smi.findings) == 0 with input as {"phase": "Running", "pods": [_pod("nvidia-smi-nvlink", text)]}
}

test_fires_on_fabric_failure if {
	text := _q(["    Fabric", "        State                             : Completed", "        Status                            : Failure"])
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [_pod("nvidia-smi-q", text)]}
	some f in fs
	f.params.fault.en == "a failed NVSwitch fabric"
	f.params.fabricState == "Completed"
	f.params.fabricStatus == "Failure"
}

test_quiet_when_succeeded if {
	text := _q(["    Remapped Rows", "        Pending                           : Yes"])
	count(gpu_smi.findings) == 0 with input as {"phase": "Succeeded", "pods": [_pod("nvidia-smi-q", text)]}
}

# Faults and actions go into the message in both languages.
test_checks_are_bilingual if {
	every ck in gpu_smi._checks {
		ck.fault.en != ""
		regex.match(`\p{Han}`, ck.fault.zh)
		ck.action.en != ""
		regex.match(`\p{Han}`, ck.action.zh)
	}
}

_table_row(row1, row2) := concat("\n", [
	"+-----------------------------------------------------------------------------+",
	"| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |",
	"|-------------------------------+----------------------+----------------------+",
	"| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
	"| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
	"|===============================+======================+======================|",
	row1,
	row2,
	"+-------------------------------+----------------------+----------------------+",
])

test_fires_on_err_row if {
	text := _table_row(
		"|   3  NVIDIA A100-SXM...  On   | 00000000:2B:00.0 Off |                 ERR! |",
		"|ERR!  ERR! ERR!     ERR! / ERR!|      0MiB / 81251MiB |    ERR!      Default |",
	)
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [_pod("nvidia-smi-table", text)]}
	some f in fs
	f.severity == "critical"
	startswith(f.params.fault.en, "its row reads ERR!")
}

# A power reading that failed once: transient, no action.
test_quiet_on_power_err if {
	text := _table_row(
		"|   1  Tesla V100-PCIE...  On   | 00008ED0:00:00.0 Off |                    0 |",
		"| N/A   29C    P0   ERR! / 250W |    593MiB / 16160MiB |      0%      Default |",
	)
	count(gpu_smi.findings) == 0 with input as {"phase": "Failed", "pods": [_pod("nvidia-smi-table", text)]}
}

_gpu_pod(n, exec) := object.union(_pod("x", ""), {"containers": [{"name": "pytorch", "limits": {"nvidia.com/gpu": n}}], "exec": exec})

test_fires_on_no_devices_with_gpus if {
	pod := _gpu_pod("8", {"nvidiaSmi": {"file": "exec/w-2/nvidia-smi.txt", "gpus": [], "error": "No devices were found"}})
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.fault.en == "no GPU visible to the driver although the pod was given 8"
	f.evidence[0].file == "exec/w-2/nvidia-smi.txt"
}

test_quiet_on_no_devices_without_gpus if {
	pod := _gpu_pod("0", {"other": [{"name": "nvidia-smi-q", "file": "exec/w-2/nvidia-smi-q.txt", "text": "No devices were found\n"}]})
	count(gpu_smi.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

# The parsed plain `nvidia-smi` table: the parser names the cells that read
# ERR! for each GPU.
_smi_pod(gpus) := {
	"name": "w-2", "namespace": "ml", "phase": "Running", "nodeName": "gpu-node-9", "conditions": [], "containers": [],
	"exec": {"nvidiaSmi": {"file": "exec/ml/w-2/nvidia-smi.txt", "gpus": gpus, "avgUtilization": 0, "processes": 0}},
}

test_fires_on_parsed_err_row if {
	pod := _smi_pod([
		{"index": 0, "utilization": 88},
		{"index": 1, "utilization": 0, "errCells": ["ecc", "fan", "temp", "perf", "power", "util"]},
	])
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.gpu == "1"
	f.severity == "critical"
	f.evidence[0].file == "exec/ml/w-2/nvidia-smi.txt"
	f.evidence[0].text == "GPU 1: ERR! in ecc, fan, temp, perf, power, util"
}

test_fires_on_parsed_err_ecc_column if {
	fs := gpu_smi.findings with input as {"phase": "Failed", "pods": [_smi_pod([{"index": 3, "utilization": 90, "errCells": ["ecc"]}])]}
	count(fs) == 1
}

test_quiet_on_lone_power_or_fan_err if {
	pod := _smi_pod([
		{"index": 0, "utilization": 91, "errCells": ["power"]},
		{"index": 1, "utilization": 0, "errCells": ["fan"]},
		{"index": 2, "utilization": 0, "errCells": ["fan", "power"]},
		{"index": 3, "utilization": 95},
	])
	count(gpu_smi.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}
