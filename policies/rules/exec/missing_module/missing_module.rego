# METADATA
# title: A Python module or package is missing
# description: |
#   The program imported a module the image does not have
#   (ModuleNotFoundError, ImportError: cannot import name, a missing system
#   library such as libGL), a package version does not provide what the
#   code expects (a model type the installed transformers does not know,
#   package metadata missing), a compiled extension was built against
#   another PyTorch or NumPy ("undefined symbol", "numpy.core.multiarray
#   failed to import"), or the command itself is missing ("command not
#   found", exit code 127). The image and the code disagree. (An undefined
#   CUDA or NCCL symbol is a CUDA library mismatch: exec.cuda-env.) A
#   warning about an optional extension is not one.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "Missing module or import: {{.module}}."
#     zh: "缺少模块或导入失败：{{.module}}。"
#   remediation:
#     en: |
#       - Add the package to the image (or the Ray `runtime_env`/`pip` list) and rebuild; pin the version the code was developed with.
#       - "cannot import name X from Y": the installed version of Y is older or newer than the code expects; align versions (`pip show Y`) with the requirements file.
#       - For a missing system library (`libGL.so.1`, `libgomp`), install the OS package in the image.
#       - "undefined symbol" in a compiled extension: rebuild it (flash-attn, apex, xformers) against the PyTorch and CUDA versions in the image; "numpy.core.multiarray failed to import": pin `numpy<2` or upgrade the extension.
#       - "Transformers does not recognize this architecture": upgrade transformers to a release that has the model, or load it with `trust_remote_code=True` if the checkpoint ships its own code.
#       - Check that the working directory and `PYTHONPATH` include your own modules in every replica, not just where you tested.
#     zh: |
#       - 把缺少的包加入镜像（或 Ray 的 `runtime_env`/`pip` 列表）并重新构建；固定开发时使用的版本。
#       - "cannot import name X from Y"：已安装的 Y 版本与代码期望的不一致；用 `pip show Y` 对照 requirements 文件统一版本。
#       - 缺少系统库（`libGL.so.1`、`libgomp`）时，在镜像中安装对应的系统包。
#       - 编译扩展报 "undefined symbol"：针对镜像中的 PyTorch 和 CUDA 版本重新编译（flash-attn、apex、xformers）；报 "numpy.core.multiarray failed to import" 时固定 `numpy<2` 或升级该扩展。
#       - "Transformers does not recognize this architecture"：升级到包含该模型的 transformers 版本；如果检查点自带代码，用 `trust_remote_code=True` 加载。
#       - 确认每个副本的工作目录和 `PYTHONPATH` 都包含你自己的模块，而不只是测试过的那台机器。
#   zh:
#     title: 缺少 Python 模块或包
#     description: |
#       程序导入了镜像中没有的模块（ModuleNotFoundError、ImportError: cannot import name、缺少 libGL 等系统库），包版本不提供代码需要的内容（已安装的 transformers 不认识的模型类型、缺少包元数据），编译扩展是针对另一个 PyTorch 或 NumPy 版本构建的（"undefined symbol"、"numpy.core.multiarray failed to import"），或者命令本身不存在（"command not found"、退出码 127）。镜像与代码不一致。（未定义的 CUDA 或 NCCL 符号属于 CUDA 库版本不匹配：exec.cuda-env。）关于可选扩展的警告不算。
package traindoc.rules.exec.missing_module

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.python

# Python 2/3 ModuleNotFoundError and ImportError wordings, transformers'
# "requires the following packages" and "the package flash_attn seems to
# be not installed", a compiled extension whose symbols do not match the
# installed PyTorch ("undefined symbol", printed on its own line when
# transformers re-raises it), NeMo's and old Megatron's "Apex was not
# found" / "Please install apex", and an extension built against another
# NumPy ("numpy.core.multiarray failed to import").
signatures contains {
	"id": "exec.missing-module.import",
	"pattern": `No module named|ImportError: cannot import name|cannot import name '[\w.]+' from '[\w.]+'|requires the following packages that were not found in your environment|(?:ImportError|OSError): .*(?:undefined symbol: |cannot open shared object file)|\.so[\w.\-]*: undefined symbol: |ImportError: .*(?:requires|pip install|seems to be not installed)|ImportError: (?:Please install \w|Apex was not found)|ImportError: numpy\.core\.\w+ failed to import`,
}

# Package metadata missing at run time: importlib.metadata's
# PackageNotFoundError (transformers and peft look up bitsandbytes,
# accelerate this way), setuptools' DistributionNotFound for a console
# script, and a checkpoint whose model type the installed transformers
# is too old to know.
signatures contains {
	"id": "exec.missing-module.package",
	"pattern": `PackageNotFoundError: (?:No package metadata was found for )?[\w.\-]+|DistributionNotFound: (?:The '[^']+' distribution was not found|[\w.\-]+)|but Transformers does not recognize this architecture`,
}

# A command missing from the image ("bash: torchrun: command not found",
# dash's "sh: 1: torchrun: not found", a Chinese locale's 未找到命令, the
# DeepSpeed runner's "launcher 'pdsh' not installed" for a multi-node run).
signatures contains {
	"id": "exec.missing-module.command",
	"pattern": `: command not found|executable file not found in \$PATH|: not found$|未找到命令|launcher '[\w\-]+' not installed`,
}

# CUDA libraries and symbols belong to exec.cuda-env.
_cuda_lib := `(?:libcuda|libcudart|libcudnn\w*|libcublas\w*|libnccl|libnvrtc|libcufft|libcurand|libcusparse|libcusolver|libnvJitLink|libnvidia-ml)\.so|undefined symbol: (?:cuda|cu[A-Z]|nccl|cublas|cudnn|cusparse|cufft|curand|nvrtc|nvJitLink)\w*`

_module(t) := _top(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`No module named '?([\w.\-]+)`, t, 1)
	count(m) > 0
} else := sprintf("%s (from %s)", [m[0][1], _top(m[0][2])]) if {
	m := regex.find_all_string_submatch_n(`cannot import name '?(\w+)'? from '?([\w.]+)`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`cannot import name '?(\w+)'?`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`not found in your environment: ([\w\-, ]+?)\.? Run`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`the package ([\w.\-]+) seems to be not installed`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`PackageNotFoundError: (?:No package metadata was found for )?([\w.\-]+)`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`DistributionNotFound: (?:The ')?([\w.\-]+)`, t, 1)
	count(m) > 0
} else := sprintf("transformers (model type %s)", [m[0][1]]) if {
	m := regex.find_all_string_submatch_n("model type `?([\\w.\\-]+)`? but Transformers does not recognize", t, 1)
	count(m) > 0
} else := "apex" if {
	regex.match(`(?i)install apex|apex was not found`, t)
} else := "numpy (an extension built against another NumPy)" if {
	contains(t, "numpy.core")
} else := sprintf("%s (undefined symbol)", [_base(m[0][1])]) if {
	m := regex.find_all_string_submatch_n(`(\S+\.so)\S*: undefined symbol`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`(\S+\.so[\d.]*): cannot open shared object file`, t, 1)
	count(m) > 0
} else := sprintf("command %s", [m[0][1]]) if {
	m := regex.find_all_string_submatch_n(`(?:^|\s)([\w.\-/]+)[:：] ?(?:command )?(?:not found|未找到命令)`, t, 1)
	count(m) > 0
} else := sprintf("command %s", [m[0][1]]) if {
	m := regex.find_all_string_submatch_n(`exec: "?([^"\s]+)"?: executable file not found`, t, 1)
	count(m) > 0
} else := sprintf("command %s", [m[0][1]]) if {
	m := regex.find_all_string_submatch_n(`launcher '([\w\-]+)' not installed`, t, 1)
	count(m) > 0
} else := "a required package"

_top(dotted) := split(dotted, ".")[0]

_base(path) := parts[count(parts) - 1] if parts := split(path, "/")

# An optional import that fails and is handled prints the same words
# ("No module named 'apex', using torch AMP"): only the failure itself
# counts (see python.decisive), and never a warning (torchvision's "Failed
# to load image Python extension: ... undefined symbol", vLLM's "Failed to
# import from vllm._C").
_hits(pod, c) := [h |
	some h in python.decisive_hits(pod, c, exec.hits(pod, c, {"exec.missing-module.import", "exec.missing-module.package", "exec.missing-module.command"}))
	not regex.match(_cuda_lib, exec.sample_text(h))
	not regex.match(_warning, exec.sample_text(h))
]

_warning := `(?:^|[\s\[\]])(?:[A-Z]\w*Warning: |WARNING[ :\]])`

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := _hits(pod, c)
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"module": _module(exec.sample_text(hs[0]))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# Exit code 127 is a shell's "command not found", even when the log is
# empty (the container's command itself does not exist in the image).
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	count(_hits(pod, c)) == 0
	not exec.specific_hit(pod, c)
	which := [w | some w in ["state", "lastState"]; c[w].state == "terminated"; k8s.exit_code(c[w]) == 127][0]
	s := c[which]
	f := {
		"subject": exec.subject(pod, c),
		"params": {"module": "the container's command (exit code 127: command not found)"},
		"evidence": [k8s.state_evidence(pod, c, which, s)],
		"time": exec.state_time(c, s),
	}
}
