# METADATA
# title: nvidia-smi shows a failed or degraded GPU
# description: |
#   An nvidia-smi output collected from the pod (`nvidia-smi -q`, `-q -d
#   ECC,ROW_REMAPPER,PERFORMANCE`, `nvidia-smi nvlink -s`, saved under
#   exec/<pod>/) shows a GPU that failed or is degraded: a row-remapping
#   failure, a remap or page retirement pending a reset, uncorrectable ECC
#   errors since the driver loaded, a reset or drain the driver asks for, a
#   failed NVSwitch fabric, NVLink links that are down while others are up,
#   a hardware thermal or power-brake slowdown that throttles the clocks,
#   a table row that reads ERR! in every sensor cell or in the ECC column
#   (in the parsed plain `nvidia-smi` table: ERR! in any cell but the fan
#   and the power draw),
#   or "No devices were found" in a pod that was given GPUs. Healthy values
#   ("Pending : No", "Not Active", retired-page counts of 0, a software
#   power cap at full load) and a lone ERR! in the power or fan cell (a
#   transient sensor read) say nothing.
# custom:
#   category: node.gpu-hardware
#   severity: warning
#   owner: hardware
#   message:
#     en: "nvidia-smi on node {{.node}}{{if .gpu}}, GPU {{.gpu}}{{end}}: {{.fault.en}}{{if .fabricStatus}} (state {{.fabricState}}, status {{.fabricStatus}}){{end}}. Action: {{.action.en}}."
#     zh: "节点 {{.node}}{{if .gpu}} 的 GPU {{.gpu}}{{end}} 在 nvidia-smi 中显示异常：{{.fault.zh}}{{if .fabricStatus}}（State 为 {{.fabricState}}，Status 为 {{.fabricStatus}}）{{end}}。处理：{{.action.zh}}。"
#   remediation:
#     en: |
#       - Row remapping failed or uncorrectable ECC errors: drain the node (`kubectl cordon <node>`, then drain) and have the GPU replaced; a pending remap or retirement only needs a GPU reset (`nvidia-smi -r`) or a reboot at the next drain.
#       - NVLink links down or a failed fabric: check `nvidia-smi nvlink -s` and `-e`, `nvidia-smi -q | grep -A3 Fabric` and the fabric manager on NVSwitch systems; reset the GPUs or reboot, and reseat the link if it stays down.
#       - HW thermal or power-brake slowdown: the GPU runs at reduced clocks, so every rank waits for it; check cooling, fans, inlet temperature and the power supply; a software power cap alone is normal under load.
#       - Run `dcgmi diag -r 3` before the node takes jobs again.
#     zh: |
#       - 行重映射失败或存在不可纠正的 ECC 错误：隔离节点（`kubectl cordon <node>` 后排空）并更换该 GPU；重映射或页退役处于待处理状态时，只需在下次排空时重置 GPU（`nvidia-smi -r`）或重启节点。
#       - NVLink 链路断开或 Fabric 失败：检查 `nvidia-smi nvlink -s` 与 `-e`、`nvidia-smi -q | grep -A3 Fabric`，NVSwitch 机型还要检查 fabric manager；重置 GPU 或重启节点，链路仍断开时重新插拔。
#       - 硬件过热或电源制动降频：GPU 以降低的频率运行，所有 rank 都要等它；检查散热、风扇、进风温度和电源；仅有软件功率上限在满载时属正常现象。
#       - 节点重新接收作业前运行 `dcgmi diag -r 3`。
#   zh:
#     title: nvidia-smi 显示 GPU 故障或性能降级
#     description: |
#       从 Pod 收集的 nvidia-smi 输出（`nvidia-smi -q`、`-q -d ECC,ROW_REMAPPER,PERFORMANCE`、`nvidia-smi nvlink -s`，保存在 exec/<pod>/ 下）显示某块 GPU 故障或性能降级：行重映射失败、重映射或页退役等待重置、驱动加载后出现不可纠正的 ECC 错误、驱动要求重置或排空、NVSwitch Fabric 失败、部分 NVLink 链路断开而其他链路正常、硬件过热与电源制动导致降频、表格中某块 GPU 的各传感器栏或 ECC 栏显示 ERR!（在解析后的 `nvidia-smi` 表格中，即风扇与功率以外的任一栏显示 ERR!），或者已分配 GPU 的 Pod 中出现 "No devices were found"。健康的取值（"Pending : No"、"Not Active"、退役页数为 0、满载时的软件功率上限）以及仅功率或风扇栏出现的 ERR!（传感器读数的暂时失败）不会产生结论。
package traindoc.rules.node.gpu_smi

import data.traindoc.lib.gpu
import data.traindoc.lib.k8s

# Faults and actions are spliced into the message: each in both languages.
_reset := {
	"en": "reset the GPU (nvidia-smi -r) or reboot the node at the next drain",
	"zh": "在下次排空节点时重置 GPU（nvidia-smi -r）或重启节点",
}

_replace := {"en": "drain the node and replace the GPU", "zh": "排空节点并更换该 GPU"}

_cooling := {
	"en": "check the node's cooling, fans and power supply; the GPU runs at reduced clocks until it is fixed",
	"zh": "检查节点的散热、风扇和电源；修复之前 GPU 会一直以降低的频率运行",
}

_lost := {
	"en": "drain the node, look for Xid 79, 48 or 74 in its kernel log, then reset or replace the GPU",
	"zh": "排空节点，在其内核日志中查找 Xid 79、48 或 74，然后重置或更换该 GPU",
}

_links := {
	"en": "drain the node, reset the GPUs or reboot; reseat or service the link if it stays down",
	"zh": "排空节点，重置 GPU 或重启节点；链路仍断开时重新插拔或检修该链路",
}

# Checks on one GPU's section: pattern, fault, action, severity.
_checks := [
	{
		"re": `Remapping Failure Occurred\s*:\s*Yes`,
		"fault": {"en": "a row-remapping failure (its memory can no longer repair itself)", "zh": "行重映射失败（其显存已无法自我修复）"},
		"action": _replace, "severity": "critical",
	},
	{
		"re": `(?:Reset Required|Drain and Reset Recommended)\s*:\s*Yes`,
		"fault": {"en": "a reset the driver requires after an unrecoverable error", "zh": "发生不可恢复的错误后，驱动要求重置 GPU"},
		"action": {"en": "drain the node and reset the GPU", "zh": "排空节点并重置 GPU"}, "severity": "critical",
	},
	{
		"re": `GPU Recovery Action\s*:\s*(?:GPU Reset|Reset|Node Reboot|Reboot|Drain)`,
		"fault": {"en": "a recovery action (reset, reboot or drain) the driver requires", "zh": "驱动要求执行恢复操作（重置、重启或排空）"},
		"action": {"en": "drain the node and perform the recovery action", "zh": "排空节点并执行该恢复操作"}, "severity": "critical",
	},
	{
		"re": `Volatile\s*\n(?:[^\n]*\n){0,5}?\s*(?:DRAM|SRAM) Uncorrectable[^:\n]*:\s*[1-9]|Volatile\s*\n(?:[^\n]*\n){0,9}?\s*Double Bit\s*\n(?:[^\n]*\n){0,7}?\s*Total\s*:\s*[1-9]`,
		"fault": {"en": "uncorrectable ECC errors since the driver loaded", "zh": "驱动加载以来出现了不可纠正的 ECC 错误"},
		"action": {"en": "drain the node and reset the GPU; replace it if the errors come back", "zh": "排空节点并重置 GPU；错误再次出现时更换该 GPU"}, "severity": "error",
	},
	{
		"re": `Remapped Rows\s*\n(?:[^\n]*\n){0,4}?\s*Pending\s*:\s*Yes`,
		"fault": {"en": "a memory row remapping that is pending until the GPU is reset", "zh": "一次显存行重映射待处理，重置 GPU 后才会生效"},
		"action": _reset, "severity": "warning",
	},
	{
		"re": `Retired Pages\s*\n(?:[^\n]*\n){0,6}?\s*Pending(?: Page Blacklist| Page Retirement)?\s*:\s*Yes`,
		"fault": {"en": "a page retirement that is pending until the GPU is reset", "zh": "一次页退役待处理，重置 GPU 后才会生效"},
		"action": _reset, "severity": "warning",
	},
	{
		"re": `HW Thermal Slowdown\s*:\s*Active`,
		"fault": {"en": "a hardware thermal slowdown (clocks throttled because the GPU is too hot)", "zh": "硬件过热降频（GPU 温度过高，频率受限）"},
		"action": _cooling, "severity": "warning",
	},
	{
		"re": `HW Power Brake Slowdown\s*:\s*Active`,
		"fault": {"en": "a hardware power-brake slowdown (clocks throttled by the power supply)", "zh": "硬件电源制动降频（频率受电源限制）"},
		"action": _cooling, "severity": "warning",
	},
	{
		"re": `HW Slowdown\s*:\s*Active`,
		"fault": {"en": "a hardware slowdown (clocks cut by half or more)", "zh": "硬件降频（频率降低一半或更多）"},
		"action": _cooling, "severity": "warning",
	},
	{
		"re": `clocks event due to thermal violation|clocks? throttl\w* due to thermal`,
		"fault": {"en": "a thermal violation that throttles the clocks (DCGM health check)", "zh": "温度越限导致降频（DCGM 健康检查）"},
		"action": _cooling, "severity": "warning",
	},
	{
		"re": `SW Thermal Slowdown\s*:\s*Active`,
		"fault": {"en": "a thermal slowdown (clocks lowered to keep the GPU under its temperature limit)", "zh": "过热降频（为使 GPU 保持在温度上限以下而降低频率）"},
		"action": _cooling, "severity": "warning",
	},
	# The table row of a GPU the driver can no longer read: fan,
	# temperature and performance state all "ERR!", or "ERR!" in the
	# Volatile Uncorr. ECC column. An "ERR!" in the power or fan cell
	# alone is a transient sensor read and says nothing.
	{
		"re": `\|\s*ERR!\s+ERR!\s+ERR!|(?:On|Off)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]\s+(?:On|Off|N/A)\s*\|\s*ERR!\s*\|`,
		"fault": _err_fault,
		"action": _lost, "severity": "critical",
	},
	{
		"re": `Link is down|Link \d+: [^\n]*\b[Dd]own\b`,
		"fault": {"en": "an NVLink link that is down", "zh": "一条 NVLink 链路断开"},
		"action": _links, "severity": "error",
	},
]

# sections splits an output into GPU sections: `nvidia-smi -q` starts each
# with "GPU 00000000:3B:00.0", `nvidia-smi nvlink -s` with "GPU 0: NVIDIA
# H100 80GB HBM3 (UUID: ...)". An output without such headers is one
# section about an unnamed GPU.
_sections(text) := secs if {
	parts := split(concat("", ["\n", text]), "\nGPU ")
	count(parts) > 1
	secs := [{"gpu": _gpu_name(p), "text": concat("", ["GPU ", p])} | some i, p in parts; i > 0]
} else := [{"gpu": "", "text": text}]

_gpu_name(p) := trim_suffix(trim_space(split(split(p, "\n")[0], " ")[0]), ":")

# The evidence line: the line of the section that matched, with its GPU.
_match_line(sec, re) := trim_space(m[0]) if {
	m := regex.find_n(re, sec.text, 1)
	count(m) == 1
}

_issues(pod) := [i |
	some o in object.get(pod, ["exec", "other"], [])
	some sec in _sections(o.text)
	some i in _section_issues(o, sec)
]

_section_issues(o, sec) := [i |
	some ck in _checks
	not _shadowed(ck, sec)
	regex.match(ck.re, sec.text)
	i := _issue(o, sec, ck.fault, ck.action, ck.severity, _brief(_match_line(sec, ck.re)))
]

# The umbrella "HW Slowdown" adds nothing when the thermal or power-brake
# line under it names the reason.
_shadowed(ck, sec) if {
	ck.re == `HW Slowdown\s*:\s*Active`
	regex.match(`HW (?:Thermal|Power Brake) Slowdown\s*:\s*Active`, sec.text)
}

# _brief shows a multi-line match as its first and last lines ("Remapped
# Rows ... Pending : Yes").
_brief(s) := trim_space(s) if not contains(s, "\n")

else := sprintf("%s ... %s", [trim_space(ls[0]), trim_space(ls[count(ls) - 1])]) if ls := split(s, "\n")

_issue(o, sec, fault, action, severity, line) := {
	"gpu": sec.gpu, "fault": fault, "action": action, "severity": severity,
	"text": trim_space(sprintf("GPU %s: %s", [sec.gpu, line])), "o": o, "params": {},
}

# NVLink: links of a GPU inactive while links elsewhere in the same output
# are up. On a system without NVLink every link is absent, not inactive.
_issues_nvlink(pod) := [i |
	some o in object.get(pod, ["exec", "other"], [])
	regex.match(`Link \d+: \d+(?:\.\d+)? GB/s`, o.text)
	some sec in _sections(o.text)
	m := regex.find_n(`Link \d+: <inactive>`, sec.text, -1)
	count(m) > 0
	n := count(m)
	fault := {
		"en": sprintf("%d NVLink link(s) inactive while the node's other links are up", [n]),
		"zh": sprintf("%d 条 NVLink 链路处于非活动状态，而节点的其他链路正常", [n]),
	}
	i := _issue(o, sec, fault, _links, "error", m[0])
]

# "all links are inActive" from NVML: the whole fabric of the GPU is down.
# A PCIe GPU without NVLink prints it too, so only a failed job counts it.
_issues_all_inactive(pod) := [i |
	input.phase == "Failed"
	some o in object.get(pod, ["exec", "other"], [])
	some sec in _sections(o.text)
	line := _match_line(sec, `Unable to retrieve N[Vv][Ll]ink information as all links are in[Aa]ctive`)
	i := _issue(o, sec, {"en": "every NVLink link inactive", "zh": "所有 NVLink 链路均处于非活动状态"}, _links, "error", line)
]

# Fabric state on NVSwitch systems: "Fabric / State : Completed / Status :
# Success" when healthy. The state and status are the driver's words,
# parameters of their own.
_issues_fabric(pod) := [i |
	some o in object.get(pod, ["exec", "other"], [])
	some sec in _sections(o.text)
	some m in regex.find_all_string_submatch_n(`Fabric\s*\n\s*State\s*:\s*([^\n]*)\n\s*Status\s*:\s*([^\n]*)`, sec.text, -1)
	status := trim_space(m[2])
	not status in {"Success", "N/A", "NVML_SUCCESS"}
	fault := {"en": "a failed NVSwitch fabric", "zh": "NVSwitch Fabric 失败"}
	i0 := _issue(o, sec, fault, _links, "error", sprintf("Fabric Status : %s", [status]))
	i := object.union(i0, {"params": {"fabricState": trim_space(m[1]), "fabricStatus": status}})
]

# "No devices were found" from nvidia-smi in a pod that was given GPUs:
# the device nodes are there but the driver cannot bring a GPU up (fallen
# off the bus, failed initialisation). A pod without GPUs sees the same
# words legitimately. The plain `nvidia-smi` output is parsed, so its
# failure line is read from the parsed result.
_no_devices := `^\s*No devices were found\s*$`

_issues_no_devices(pod) := [i |
	_pod_gpus(pod) > 0
	some o in _smi_outputs(pod)
	line := _match_line({"text": o.text}, `(?m)^\s*No devices were found\s*$`)
	fault := {
		"en": sprintf("no GPU visible to the driver although the pod was given %d", [_pod_gpus(pod)]),
		"zh": sprintf("Pod 分配了 %d 块 GPU，但驱动一块也看不到", [_pod_gpus(pod)]),
	}
	i := _issue(o, {"gpu": ""}, fault, _lost, "error", line)
]

# Outputs to read for nvidia-smi's own failure line: the unparsed ones
# and the failure the parser kept of the plain `nvidia-smi` output.
_smi_outputs(pod) := array.concat(object.get(pod, ["exec", "other"], []), [o |
	smi := object.get(pod, ["exec", "nvidiaSmi"], {})
	regex.match(_no_devices, object.get(smi, "error", ""))
	o := {"name": "nvidia-smi", "file": object.get(smi, "file", ""), "text": smi.error}
])

_pod_gpus(pod) := sum([n |
	some c in object.get(pod, "containers", [])
	n := to_number(object.get(c, ["limits", "nvidia.com/gpu"], object.get(c, ["requests", "nvidia.com/gpu"], "0")))
])

# The parsed plain `nvidia-smi` table names, per GPU, the cells that read
# ERR! (errCells). ERR! in the ECC column, or in a reading other than the
# fan and the power draw (temperature, performance state, memory,
# utilization), means the driver can no longer read the GPU. An ERR! in
# the power or fan cell alone is a transient sensor read
# (Azure/azhpc-diagnostics#77) and says nothing.
_transient_cells := {"power", "fan"}

_issues_err_cells(pod) := [i |
	smi := object.get(pod, ["exec", "nvidiaSmi"], {})
	some g in object.get(smi, "gpus", [])
	cells := object.get(g, "errCells", [])
	count({c | some c in cells} - _transient_cells) > 0
	o := {"name": "nvidia-smi", "file": object.get(smi, "file", "")}
	line := sprintf("ERR! in %s", [concat(", ", cells)])
	i := _issue(o, {"gpu": sprintf("%d", [g.index])}, _err_fault, _lost, "critical", line)
]

_err_fault := {
	"en": "its row reads ERR! (the driver can no longer read the GPU's sensors or ECC state)",
	"zh": "其所在行显示 ERR!（驱动已无法读取该 GPU 的传感器或 ECC 状态）",
}

_all_issues(pod) := array.concat(
	array.concat(array.concat(_issues(pod), _issues_nvlink(pod)), array.concat(_issues_all_inactive(pod), _issues_fabric(pod))),
	array.concat(_issues_no_devices(pod), _issues_err_cells(pod)),
)

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	is := _all_issues(pod)
	count(is) > 0
	ranked := sort([[0 - gpu.severity_rank[i.severity], i.gpu, i.fault.en, i.text, k] | some k, i in is])
	w := is[ranked[0][4]]
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": object.union({"node": object.get(pod, "nodeName", "?"), "gpu": w.gpu, "fault": w.fault, "action": w.action}, w.params),
		"evidence": [_evidence(pod, is[r[4]]) | some j, r in ranked; j < 3],
		"time": "",
		"severity": w.severity,
	}
}

_evidence(pod, i) := {
	"kind": "exec",
	"source": sprintf("pod %s %s", [pod.name, i.o.name]),
	"object": k8s.pod_ref(pod),
	"file": i.o.file,
	"text": i.text,
}
