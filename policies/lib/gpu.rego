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

_reset := "drain the node and reset the GPU (nvidia-smi -r or a reboot); replace it if the error repeats"

_reboot := "drain and reboot the node; have the GPU, its riser and power serviced if it happens again"

_nvlink := "drain the node, check the links (nvidia-smi nvlink -s, -e) and reset the GPUs; reseat or service the link if it recurs"

_restart := "restart the job from its last checkpoint; the GPU recovers, but watch the node for repeats"

_ce := "restart the job; if the same GPU repeats it, drain the node and run dcgmi diag -r 3"

_hw(fault, action, severity) := {"class": "hardware", "fault": fault, "action": action, "severity": severity}

# xid_catalog maps an Xid to its grading. Xids not listed (unused codes,
# application and driver Xids) yield nothing.
xid_catalog := {
	"8": _hw("Xid 8 GPU stopped processing (channel idle timeout)", _ce, "error"),
	"39": _hw("Xid 39 copy engine exception", _ce, "error"),
	"40": _hw("Xid 40 copy engine exception", _ce, "error"),
	"41": _hw("Xid 41 copy engine exception", _ce, "error"),
	"46": _hw("Xid 46 GPU stopped processing (GPU timeout)", _reset, "critical"),
	"48": _hw("Xid 48 uncorrectable double-bit ECC error", "drain the node and reset the GPU so the bad row or page is retired; replace the GPU if it repeats", "critical"),
	"54": _hw("Xid 54 auxiliary power not connected, clocks reduced", "check the GPU's power cabling and the node's power supply", "warning"),
	"61": _hw("Xid 61 internal micro-controller breakpoint or warning", _reset, "error"),
	"62": _hw("Xid 62 internal micro-controller halt", _reset, "critical"),
	"63": _hw("Xid 63 row remapping or page retirement pending", "no immediate action; reset the GPU at the next drain so the remap takes effect", "info"),
	"64": _hw("Xid 64 row remapping or page retirement failed", "drain the node and replace the GPU: its memory can no longer repair itself", "critical"),
	"70": _hw("Xid 70 copy engine error", _ce, "error"),
	"71": _hw("Xid 71 copy engine error", _ce, "error"),
	"72": _hw("Xid 72 copy engine error", _ce, "error"),
	"74": _hw("Xid 74 NVLink error", _nvlink, "critical"),
	"75": _hw("Xid 75 copy engine error", _ce, "error"),
	"76": _hw("Xid 76 copy engine error", _ce, "error"),
	"77": _hw("Xid 77 copy engine error", _ce, "error"),
	"79": _hw("Xid 79 GPU has fallen off the bus", _reboot, "critical"),
	"85": _hw("Xid 85 copy engine error", _ce, "error"),
	"92": _hw("Xid 92 high single-bit ECC error rate", "no immediate action; watch the GPU and replace it if the rate stays high", "info"),
	"93": _hw("Xid 93 InfoROM wear limit reached", "no immediate action; plan to service the GPU", "info"),
	"94": _hw("Xid 94 contained ECC error (the program using the memory was stopped)", _restart, "error"),
	"95": _hw("Xid 95 uncontained ECC error", _reset, "critical"),
	"109": _hw("Xid 109 context switch timeout", _reset, "critical"),
	"110": _hw("Xid 110 GPU security fault", _reset, "critical"),
	"119": _hw("Xid 119 GSP RPC timeout (GPU firmware not responding)", _reset, "critical"),
	"120": _hw("Xid 120 GSP error (GPU firmware)", _reset, "critical"),
	"121": _hw("Xid 121 C2C link error", "no immediate action; watch the node", "info"),
	"136": _hw("Xid 136 link training failed", _reset, "critical"),
	"137": _hw("Xid 137 NVLink privilege error", "no immediate action; follow the NVLink Xid logged with it", "info"),
	"140": _hw("Xid 140 unrecovered ECC error", _reset, "critical"),
	"143": _hw("Xid 143 GPU initialization failure", _reset, "critical"),
	"144": _hw("Xid 144 NVLink error (SAW)", _nvlink, "critical"),
	"145": _hw("Xid 145 NVLink error (RLW)", _nvlink, "critical"),
	"146": _hw("Xid 146 NVLink error (TLW)", _nvlink, "critical"),
	"147": _hw("Xid 147 NVLink error (TREX)", _nvlink, "critical"),
	"148": _hw("Xid 148 NVLink error (NVLPW control)", _nvlink, "critical"),
	"149": _hw("Xid 149 NVLink error (NETIR)", _nvlink, "critical"),
	"150": _hw("Xid 150 NVLink error (MSE)", _nvlink, "critical"),
	"151": _hw("Xid 151 key rotation error", "drain and restart the node (VM)", "critical"),
	"154": _hw("Xid 154 GPU recovery action changed (reset or reboot required)", _reset, "critical"),
	"155": _hw("Xid 155 NVLink software-defined error", _reset, "critical"),
	"156": _hw("Xid 156 resource retirement event", _reset, "critical"),
	"157": _hw("Xid 157 resource retirement failure", "plan to service the GPU", "info"),
	"158": _hw("Xid 158 GPU fatal timeout", _reset, "critical"),
	"167": _hw("Xid 167 PCIe fatal timeout", _reboot, "critical"),
	"168": _hw("Xid 168 reduced GPU memory capacity", "drain the node and have the GPU serviced", "warning"),
	"169": _hw("Xid 169 internal micro-controller (SEC2) halt", _reset, "critical"),
	"171": _hw("Xid 171 uncorrectable DRAM error", _reset, "critical"),
	"172": _hw("Xid 172 uncorrectable SRAM error", _reset, "critical"),
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
		"fault": "the GPU is lost (fallen off the bus or not responding)",
		"action": _reboot, "severity": "critical",
	},
	"node.gpu-ecc": {
		"fault": "an uncorrectable ECC or NVLink error",
		"action": _reset, "severity": "critical",
	},
	"node.gpu-reset-required": {
		"fault": "the GPU is in an unrecoverable state and needs a reset",
		"action": _reset, "severity": "critical",
	},
	"node.gpu-init": {
		"fault": "the driver could not initialise the GPU",
		"action": _reset, "severity": "error",
	},
	"node.gpu-sxid": {
		"fault": "a fatal NVSwitch error (SXid)",
		"action": _nvlink, "severity": "critical",
	},
	"node.gpu-unknown": {
		"fault": "the CUDA driver returned \"unknown error\" (typically a failing GPU)",
		"action": "drain the node, look for Xid errors in its kernel log and run dcgmi diag -r 3",
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
	ranked := sort([[0 - severity_rank[f.severity], f.xid, f.fault, f] | some f in fs])
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
