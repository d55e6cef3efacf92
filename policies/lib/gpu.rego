# Helpers for the GPU hardware rules: NVIDIA's Xid catalog graded for a
# training job, the kernel-log wordings of a failing GPU across driver
# versions, and the times kernel logs print. This package emits no
# findings.
#
# The grading follows NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors,
# "Resolution Bucket" columns):
# - RESET_GPU, RESTART_BM/VM and the Xid 48/74 workflows: the GPU or the
#   node must be reset or drained; critical.
# - RESTART_APP with CONTACT_SUPPORT (the program is not at fault, the GPU
#   recovers: contained ECC errors, copy-engine exceptions): error.
# - CHECK_MECHANICALS, and the NVLink5 Xids logged as Nonfatal: warning.
# - IGNORE buckets that still say something about the hardware (a row
#   marked for remapping, a high corrected-error rate): info, a note.
# - Application Xids (13, 31, 43, 45, 68 and the CHECK_APP/CUDA buckets
#   11, 25, 32, 69, 80) are not hardware faults: they follow a program
#   error (an out-of-range access, an illegal address, a device-side
#   assert) or the driver tearing the program's channels down, and NVIDIA's
#   own device plugin keeps the GPU healthy on them. They yield nothing;
#   the program's own error is in its log.
# - Driver-internal Xids in IGNORE buckets (37, 38, 44, 66, 67, 141, 160,
#   161) yield nothing either.
package traindoc.lib.gpu

# The actions and faults below are spliced into the rules' messages, so
# each exists in both languages: {"en": ..., "zh": ...}.
_reset := {
	"en": "drain the node and reset the GPU (nvidia-smi -r or a reboot); replace it if the error repeats",
	"zh": "排空节点并重置 GPU（nvidia-smi -r 或重启）；错误再次出现时更换该 GPU",
}

_reboot := {
	"en": "drain and reboot the node; have the GPU, its riser and power serviced if it happens again",
	"zh": "排空并重启节点；再次发生时检修该 GPU、其转接卡和供电",
}

_nvlink := {
	"en": "drain the node, check the links (nvidia-smi nvlink -s, -e) and reset the GPUs; reseat or service the link if it recurs",
	"zh": "排空节点，检查链路（nvidia-smi nvlink -s、-e）并重置 GPU；问题复现时重新插拔或检修该链路",
}

_restart := {
	"en": "restart the job from its last checkpoint; the GPU recovers, but watch the node for repeats",
	"zh": "从最近的检查点重启作业；GPU 会自行恢复，但要留意该节点是否再次出现此错误",
}

_ce := {
	"en": "restart the job; if the same GPU repeats it, drain the node and run dcgmi diag -r 3",
	"zh": "重启作业；同一块 GPU 再次出现时，排空节点并运行 dcgmi diag -r 3",
}

_watch(en, zh) := {"en": sprintf("no immediate action; %s", [en]), "zh": sprintf("无需立即处理；%s", [zh])}

# _xids grades each hardware Xid: [what it is in English, in Chinese,
# action, severity]. Xids not listed (unused codes, application and driver
# Xids) yield nothing.
_xids := {
	"8": ["GPU stopped processing (channel idle timeout)", "GPU 停止处理（通道空闲超时）", _ce, "error"],
	"39": ["copy engine exception", "复制引擎异常", _ce, "error"],
	"40": ["copy engine exception", "复制引擎异常", _ce, "error"],
	"41": ["copy engine exception", "复制引擎异常", _ce, "error"],
	"46": ["GPU stopped processing (GPU timeout)", "GPU 停止处理（GPU 超时）", _reset, "critical"],
	"48": [
		"uncorrectable double-bit ECC error", "不可纠正的双比特 ECC 错误",
		{
			"en": "drain the node and reset the GPU so the bad row or page is retired; replace the GPU if it repeats",
			"zh": "排空节点并重置 GPU，使损坏的行或页退役；再次出现时更换该 GPU",
		},
		"critical",
	],
	"54": [
		"auxiliary power not connected, clocks reduced", "辅助电源未连接，频率已降低",
		{"en": "check the GPU's power cabling and the node's power supply", "zh": "检查 GPU 的供电线缆和节点的电源"},
		"warning",
	],
	"61": ["internal micro-controller breakpoint or warning", "内部微控制器断点或警告", _reset, "error"],
	"62": ["internal micro-controller halt", "内部微控制器停机", _reset, "critical"],
	"63": [
		"row remapping or page retirement pending", "行重映射或页退役待处理",
		_watch("reset the GPU at the next drain so the remap takes effect", "下次排空时重置 GPU，使重映射生效"),
		"info",
	],
	"64": [
		"row remapping or page retirement failed", "行重映射或页退役失败",
		{"en": "drain the node and replace the GPU: its memory can no longer repair itself", "zh": "排空节点并更换该 GPU：其显存已无法自我修复"},
		"critical",
	],
	"70": ["copy engine error", "复制引擎错误", _ce, "error"],
	"71": ["copy engine error", "复制引擎错误", _ce, "error"],
	"72": ["copy engine error", "复制引擎错误", _ce, "error"],
	"74": ["NVLink error", "NVLink 错误", _nvlink, "critical"],
	"75": ["copy engine error", "复制引擎错误", _ce, "error"],
	"76": ["copy engine error", "复制引擎错误", _ce, "error"],
	"77": ["copy engine error", "复制引擎错误", _ce, "error"],
	"79": ["GPU has fallen off the bus", "GPU 已从总线上掉线", _reboot, "critical"],
	"85": ["copy engine error", "复制引擎错误", _ce, "error"],
	"92": [
		"high single-bit ECC error rate", "单比特 ECC 错误率过高",
		_watch("watch the GPU and replace it if the rate stays high", "持续观察该 GPU，错误率一直偏高时更换"),
		"info",
	],
	"93": ["InfoROM wear limit reached", "InfoROM 已达到磨损上限", _watch("plan to service the GPU", "安排检修该 GPU"), "info"],
	"94": ["contained ECC error (the program using the memory was stopped)", "可控的 ECC 错误（使用该显存的程序已被终止）", _restart, "error"],
	"95": ["uncontained ECC error", "不可控的 ECC 错误", _reset, "critical"],
	"109": ["context switch timeout", "上下文切换超时", _reset, "critical"],
	"110": ["GPU security fault", "GPU 安全故障", _reset, "critical"],
	"119": ["GSP RPC timeout (GPU firmware not responding)", "GSP RPC 超时（GPU 固件无响应）", _reset, "critical"],
	"120": ["GSP error (GPU firmware)", "GSP 错误（GPU 固件）", _reset, "critical"],
	"121": ["C2C link error", "C2C 链路错误", _watch("watch the node", "持续观察该节点"), "info"],
	"136": ["link training failed", "链路训练失败", _reset, "critical"],
	"137": [
		"NVLink privilege error", "NVLink 权限错误",
		_watch("follow the NVLink Xid logged with it", "按同时记录的 NVLink Xid 处理"),
		"info",
	],
	"140": ["unrecovered ECC error", "未恢复的 ECC 错误", _reset, "critical"],
	"143": ["GPU initialization failure", "GPU 初始化失败", _reset, "critical"],
	"144": ["NVLink error (SAW)", "NVLink 错误（SAW）", _nvlink, "critical"],
	"145": ["NVLink error (RLW)", "NVLink 错误（RLW）", _nvlink, "critical"],
	"146": ["NVLink error (TLW)", "NVLink 错误（TLW）", _nvlink, "critical"],
	"147": ["NVLink error (TREX)", "NVLink 错误（TREX）", _nvlink, "critical"],
	"148": ["NVLink error (NVLPW control)", "NVLink 错误（NVLPW 控制）", _nvlink, "critical"],
	"149": ["NVLink error (NETIR)", "NVLink 错误（NETIR）", _nvlink, "critical"],
	"150": ["NVLink error (MSE)", "NVLink 错误（MSE）", _nvlink, "critical"],
	"151": ["key rotation error", "密钥轮换错误", {"en": "drain and restart the node (VM)", "zh": "排空并重启节点（虚拟机）"}, "critical"],
	"154": ["GPU recovery action changed (reset or reboot required)", "GPU 恢复操作已变更（需要重置或重启）", _reset, "critical"],
	"155": ["NVLink software-defined error", "NVLink 软件定义错误", _reset, "critical"],
	"156": ["resource retirement event", "资源退役事件", _reset, "critical"],
	"157": ["resource retirement failure", "资源退役失败", {"en": "plan to service the GPU", "zh": "安排检修该 GPU"}, "info"],
	"158": ["GPU fatal timeout", "GPU 致命超时", _reset, "critical"],
	"167": ["PCIe fatal timeout", "PCIe 致命超时", _reboot, "critical"],
	"168": [
		"reduced GPU memory capacity", "GPU 显存容量减少",
		{"en": "drain the node and have the GPU serviced", "zh": "排空节点并检修该 GPU"},
		"warning",
	],
	"169": ["internal micro-controller (SEC2) halt", "内部微控制器（SEC2）停机", _reset, "critical"],
	"171": ["uncorrectable DRAM error", "不可纠正的 DRAM 错误", _reset, "critical"],
	"172": ["uncorrectable SRAM error", "不可纠正的 SRAM 错误", _reset, "critical"],
}

# xid_catalog maps an Xid to its grading: {"class", "fault", "action",
# "severity"}, fault and action in both languages.
xid_catalog := {xid: e |
	some xid, x in _xids
	e := {
		"class": "hardware",
		"fault": {"en": sprintf("Xid %s %s", [xid, x[0]]), "zh": sprintf("Xid %s，%s", [xid, x[1]])},
		"action": x[2], "severity": x[3],
	}
}

# app_xids are raised by a program's own error (or the driver cleaning up
# after it): never a hardware fault of the node.
app_xids := {"11", "13", "25", "31", "32", "43", "45", "68", "69", "80"}

# xid_re matches the kernel's Xid line in every driver version:
# "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen
# off the bus.", "NVRM: Xid (0000:01:00): 31, Ch 0000000b, ...",
# "NVRM: Xid (PCI:0000:01:00): 119, Timeout after 6s of waiting ...".
# Groups: the GPU's PCI address, the Xid.
xid_re := `NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?)\): (\d+),`

# hardware_xid_pattern is an RE2 pattern for a hardware Xid line only, for
# log signatures: a log full of application Xids must not crowd the
# hardware one out of the samples.
hardware_xid_pattern := sprintf(`NVRM: Xid \((?:PCI:)?[0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?\): (?P<xid>%s),`, [concat("|", sort(object.keys(xid_catalog)))])

# NVLink5 Xids (144-150) say whether the event was fatal.
_nonfatal_nvlink(code, line) if {
	to_number(code) >= 144
	to_number(code) <= 150
	regex.match(`(?i)\bnon-?fatal\b`, line)
}

# xid_faults(line) are the hardware faults an Xid line reports:
# {"xid", "gpu", "fault", "action", "severity"}.
xid_faults(line) := {f |
	some g in regex.find_all_string_submatch_n(xid_re, line, -1)
	e := xid_catalog[g[2]]
	f := {
		"xid": g[2], "gpu": lower(g[1]), "fault": e.fault, "action": e.action,
		"severity": _xid_severity(g[2], e, line),
	}
}

_xid_severity(code, _, line) := "warning" if _nonfatal_nvlink(code, line)

else := e.severity if e := xid_catalog[code]

# Other wordings of a failing GPU, from CUDA, NCCL, NVML, nvidia-smi and
# the kernel, keyed by the signature ids the rules declare.
other_faults := {
	"node.gpu-lost": {
		"fault": {"en": "the GPU is lost (fallen off the bus or not responding)", "zh": "GPU 已丢失（从总线上掉线或无响应）"},
		"action": _reboot, "severity": "critical",
	},
	"node.gpu-ecc": {
		"fault": {"en": "an uncorrectable ECC or NVLink error", "zh": "不可纠正的 ECC 或 NVLink 错误"},
		"action": _reset, "severity": "critical",
	},
	"node.gpu-reset-required": {
		"fault": {"en": "the GPU is in an unrecoverable state and needs a reset", "zh": "GPU 处于不可恢复的状态，需要重置"},
		"action": _reset, "severity": "critical",
	},
	"node.gpu-init": {
		"fault": {"en": "the driver could not initialise the GPU", "zh": "驱动无法初始化 GPU"},
		"action": _reset, "severity": "error",
	},
	"node.gpu-sxid": {
		"fault": {"en": "a fatal NVSwitch error (SXid)", "zh": "NVSwitch 致命错误（SXid）"},
		"action": _nvlink, "severity": "critical",
	},
	"node.gpu-unknown": {
		"fault": {"en": "the CUDA driver returned \"unknown error\" (typically a failing GPU)", "zh": "CUDA 驱动返回 \"unknown error\"（通常是 GPU 出现故障）"},
		"action": {
			"en": "drain the node, look for Xid errors in its kernel log and run dcgmi diag -r 3",
			"zh": "排空节点，在其内核日志中查找 Xid 错误，并运行 dcgmi diag -r 3",
		},
		"severity": "error",
	},
}

# other_patterns are the RE2 patterns of other_faults, shared by the log
# signatures and the reading of kernel logs collected from a pod.
other_patterns := {
	"node.gpu-lost": `fallen off the bus|GPU is lost|Unable to determine the device handle for [Gg][Pp][Uu]|NVML_ERROR_GPU_IS_LOST|NVMLError_GPUIsLost|GPU has been lost`,
	"node.gpu-ecc": `uncorrectable ECC error encountered|cudaErrorECCUncorrectable|CUDA_ERROR_ECC_UNCORRECTABLE|[Uu]ncorrectable NVLink error|cudaErrorNvlinkUncorrectable|CUDA_ERROR_NVLINK_UNCORRECTABLE`,
	"node.gpu-reset-required": `GPU requires reset|NV_ERR_RESET_REQUIRED|Reset required \[NV_ERR`,
	"node.gpu-init": `RmInitAdapter failed!|rm_init_adapter failed|GPU initialization failed|The NVIDIA probe routine failed`,
	"node.gpu-sxid": `SXid \(PCI:[0-9A-Fa-f:.]+\): \d+, (?:Severity )?Fatal`,
	"node.gpu-unknown": `CUDA error: unknown error|Cuda failure (?:\d+ )?'unknown error'|CUDA failure [\w.]+:\d+ 'unknown error'|cudaErrorUnknown\b|CUDA driver error: unknown error`,
}

# line_faults(line) are the faults a kernel-log or log line reports: its
# hardware Xids, or else the first other wording that matches.
line_faults(line) := fs if {
	fs := xid_faults(line)
	count(fs) > 0
} else := {f |
	some id, p in other_patterns
	regex.match(p, line)
	e := other_faults[id]
	f := {"xid": "", "gpu": _pci(line), "fault": e.fault, "action": e.action, "severity": e.severity, "id": id}
}

_pci(line) := lower(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?`, line, 1)
	count(m) == 1
} else := ""

# severity_rank orders severities, worst highest.
severity_rank := {"info": 0, "warning": 1, "error": 2, "critical": 3}

# worst(fs) is the most severe fault of a set, the lowest Xid first among
# equals (so that the same input always names the same fault).
worst(fs) := w if {
	ranked := sort([[0 - severity_rank[f.severity], f.xid, f.fault.en, f] | some f in fs])
	w := ranked[0][3]
}

# kernel_time is when a kernel log line was written, in RFC 3339, when it
# says so: `dmesg -T` ("[Sat Mar  1 09:58:00 2026]"), `dmesg
# --time-format iso` or journald's short-iso ("2026-03-01T09:58:00,123+00:00"),
# or a collector's RFC 3339 prefix. Seconds since boot ("[ 1843.308]")
# give no time: "".
kernel_time(line) := t if {
	m := regex.find_all_string_submatch_n(`^\[?\s*((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4})\]`, line, 1)
	count(m) == 1
	ns := time.parse_ns("Mon Jan _2 15:04:05 2006", m[0][1])
	t := time.format([ns, "UTC", "2006-01-02T15:04:05Z07:00"])
} else := t if {
	m := regex.find_all_string_submatch_n(`^\[?(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,]\d+)?(Z|[+-]\d{2}:?\d{2})?`, line, 1)
	count(m) == 1
	ns := time.parse_rfc3339_ns(sprintf("%sT%s%s", [m[0][1], m[0][2], _zone(m[0][3])]))
	t := time.format([ns, "UTC", "2006-01-02T15:04:05Z07:00"])
} else := ""

_zone("") := "Z"

_zone(z) := z if {
	z != ""
	contains(z, ":")
}

_zone(z) := "Z" if z == "Z"

_zone(z) := sprintf("%s:%s", [substring(z, 0, 3), substring(z, 3, 2)]) if {
	z != "Z"
	z != ""
	not contains(z, ":")
}

# before(a, b) holds when RFC 3339 time a is earlier than b; unknown times
# are never earlier.
before(a, b) if {
	a != ""
	b != ""
	time.parse_rfc3339_ns(a) < time.parse_rfc3339_ns(b)
}

# named_xids are the Xids a health agent's condition, event or message
# names: NVSentinel "ErrorCode:79", EKS "NvidiaXID79Error", GKE
# XidCriticalError's reason {"79":true}, NPD "Xid 79" or "XID: 79".
named_xids(text) := {x |
	some m in regex.find_all_string_submatch_n(`(?i)(?:ErrorCode:\s*|NvidiaXID|\bXid[ :(]*|"(?:xid)?)(\d{1,3})(?:Error|Warning|"\s*:\s*true|\b)`, text, -1)
	x := m[1]
}

# only_app_xids holds when a text names Xids and every one of them is an
# application Xid.
only_app_xids(text) if {
	xs := named_xids(text)
	count(xs) > 0
	count(xs - app_xids) == 0
}
