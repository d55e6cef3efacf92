# METADATA
# title: A file or path does not exist
# description: |
#   The program opened a data, model, tokenizer, script or checkpoint path
#   that does not exist in the container (FileNotFoundError, "No such file or
#   directory", Hugging Face "does not appear to have a file named" or "Can't
#   load ... is not a local folder", a repository or dataset file that is
#   not found, a model directory without weights ("Error no file named
#   pytorch_model.bin, model.safetensors ..."), a local path taken for a
#   Hub repo id because it does not exist ("Incorrect path_or_model_id",
#   "HFValidationError: Repo id must ... '/models/x'"), or another
#   exception wrapping it: "ValueError: File ... not found", "Can't find
#   file ..."). A missing file the program handles (an
#   optional cache it then recreates) is not reported.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "A path does not exist: {{.path}}."
#     zh: "路径不存在：{{.path}}。"
#   remediation:
#     en: |
#       - Check the path in the job arguments against the volume mounts of every replica (`kubectl describe pod`: Mounts); a PVC mounted only on the master is a common cause.
#       - For data on object storage, make sure the download or sync step ran before training and that all ranks wait for it (rank-0-only downloads need a barrier).
#       - For Hugging Face models, pass the directory that holds `config.json` and the weights, or a correct repo id; with `HF_HUB_OFFLINE=1` the model must already be in `HF_HOME`.
#       - For resuming, confirm the checkpoint directory exists and holds the expected step (`ls` it in the pod).
#     zh: |
#       - 对照每个副本的卷挂载（`kubectl describe pod` 中的 Mounts）检查作业参数中的路径；只在 master 上挂载的 PVC 是常见原因。
#       - 数据在对象存储上时，确认下载或同步步骤在训练前已完成，且所有 rank 都等待它（只在 rank 0 下载时需要 barrier）。
#       - Hugging Face 模型要传入包含 `config.json` 和权重的目录，或正确的仓库 id；设置了 `HF_HUB_OFFLINE=1` 时模型必须已在 `HF_HOME` 中。
#       - 恢复训练时，确认检查点目录存在且包含预期的 step（在 Pod 中 `ls` 查看）。
#   zh:
#     title: 文件或路径不存在
#     description: |
#       程序打开的数据、模型、分词器、脚本或检查点路径在容器中不存在（FileNotFoundError、"No such file or directory"、Hugging Face "does not appear to have a file named" 或 "Can't load ... is not a local folder"、找不到仓库或数据集文件、模型目录中没有权重文件（"Error no file named pytorch_model.bin, model.safetensors ..."）、本地路径不存在而被当作 Hub 仓库 id（"Incorrect path_or_model_id"、"HFValidationError: Repo id must ... '/models/x'"），或者由其他异常包装："ValueError: File ... not found"、"Can't find file ..."）。程序自行处理的缺失文件（之后会重新创建的可选缓存）不会报告。
package traindoc.rules.exec.file_not_found

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.python

signatures contains {
	"id": "exec.file-not-found.python",
	"pattern": `FileNotFoundError|can't open file .*\[Errno 2\]|\[Errno 2\] No such file or directory`,
}

# Hugging Face hub and datasets.
signatures contains {
	"id": "exec.file-not-found.hf",
	"pattern": `does not appear to have a file named|Can't load \w[\w ]* for '[^']+'|is not a local folder and is not a valid model identifier|RepositoryNotFoundError|EntryNotFoundError|Couldn't find a dataset script|Couldn't find any data file at|couldn't find it in the cached files|Unable to find '[^']+'(?: with any supported extension)?|DatasetNotFoundError|OSError: Error no file named [^\n]* found in directory|Incorrect path_or_model_id: '|HFValidationError: Repo id must [^\n]*: '(?:/|\.{1,2}/|~/)`,
}

# Another exception that says a file, path or checkpoint is missing
# ("ValueError: File /data/x.json not found", "Exception: Can't find file
# ...", "RuntimeError: checkpoint directory ... does not exist").
signatures contains {
	"id": "exec.file-not-found.wrapped",
	"pattern": `(?:Error|Exception): [^\n]*?\b(?:[Ff]ile|[Pp]ath|[Dd]irectory|[Dd]ir|[Cc]heckpoint|[Dd]ataset|[Tt]okenizer|[Ww]eights?|[Ff]older)\b[^\n]*?(?:not found|does not exist|doesn't exist|could not be found|cannot be found|was not found)|(?:Error|Exception): (?:Can't|Cannot|Could not|Couldn't|Unable to) (?:find|locate|open) (?:the |any )?(?:file|path|directory|checkpoint|dataset)`,
}

# Plain "No such file or directory" from shells and tools: only counts at the
# end of a failed container's log.
signatures contains {
	"id": "ctx.no-such-file",
	"pattern": `No such file or directory`,
	"hint": "No such file or directory",
}

_not_mine := `cannot open shared object file|/dev/shm|Gated|gated|401 Client Error|403 Client Error|Permission denied|KeyError: |ImportError|ModuleNotFoundError|not found in your environment`

_path(t) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`No such file or directory: '([^']+)'`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`can't open file '([^']+)'`, t, 1)
	count(m) > 0
} else := sprintf("%s/%s", [m[0][1], m[0][2]]) if {
	m := regex.find_all_string_submatch_n(`(\S+) does not appear to have a file named ([\w.\-]+[\w])`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`(?:Can't load \w[\w ]* for|dataset script at|any data file at|is not the path to a directory containing a file named|Unable to find) '?([^'\s]+?)'?(?:\.\s|\.?$|\s)`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`(?:Incorrect path_or_model_id|HFValidationError: Repo id must [^\n]*): '((?:/|\.{1,2}/|~/)?[^']*)'`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`Error no file named [^\n]*? found in directory (\S+?)\.?$`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`File b?'([^']+)' does not exist`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`([/~][\w.\-/]+): No such file or directory`, t, 1)
	count(m) > 0
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`['"]?((?:/|\./|~/)[\w.\-/]*[\w])['"]?`, t, 1)
	count(m) > 0
} else := "?"

_ids := {"exec.file-not-found.python", "exec.file-not-found.hf", "exec.file-not-found.wrapped"}

# Only the failure itself counts, not a missing optional file the program
# handled (see python.decisive).
_hits(pod, c) := [h |
	some h in python.decisive_hits(pod, c, exec.hits(pod, c, _ids))
	not regex.match(_not_mine, exec.sample_text(h))
]

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := _hits(pod, c)
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"path": _path(exec.sample_text(hs[0]))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	exec.failed_container(pod, c)
	not exec.specific_hit(pod, c)
	hs := [h |
		some h in exec.hits(pod, c, {"ctx.no-such-file"})
		t := exec.sample_text(h)
		not regex.match(_not_mine, t)
		some tl in object.get(h.log, "tail", [])
		contains(tl, t)
	]
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"path": _path(exec.sample_text(hs[0]))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
		"severity": "warning",
	}
}
