package traindoc.rules.exec.file_not_found_test

import data.traindoc.rules.exec.file_not_found

_pod(state, matches, progress) := {
	"name": "w-2", "namespace": "ml", "phase": "Running", "nodeName": "node-a", "conditions": [],
	"containers": [{
		"name": "main", "restartCount": 0, "state": state, "lastState": {},
		"logs": [{
			"file": "logs/w-2/main.log", "previous": false, "lines": 500, "matches": matches,
			"tail": ["x"], "progress": progress, "exception": "",
		}],
	}],
}

_failed := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}

_running := {"state": "running"}

_m(text) := {"count": 1, "firstLine": 100, "lastLine": 100, "firstTime": "2026-03-01T09:59:00Z", "samples": [{"line": 100, "time": "2026-03-01T09:59:00Z", "text": text}]}

_re(id) := s.pattern if {
	some s in file_not_found.signatures
	s.id == id
}

test_fires_on_file_not_found if {
	pod := _pod(_failed, {"exec.file-not-found.python": _m("FileNotFoundError: [Errno 2] No such file or directory: '/data/sft/mix-v4.jsonl'")}, {})
	fs := file_not_found.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/data/sft/mix-v4.jsonl"
}

test_fires_on_hf_missing_config if {
	pod := _pod(_failed, {"exec.file-not-found.hf": _m("OSError: /models/llama-13b does not appear to have a file named config.json. Checkout 'https://huggingface.co//models/llama-13b/None' for available files.")}, {})
	fs := file_not_found.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/models/llama-13b/config.json"
}

# "No resume checkpoint found" handled by the script, training goes on.
test_quiet_when_handled if {
	pod := _pod(_running, {"exec.file-not-found.python": _m("FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/latest'")}, {"lastStepLine": 450})
	count(file_not_found.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(_re("exec.file-not-found.python"), "python: can't open file '/workspace/train.py': [Errno 2] No such file or directory")
	regex.match(_re("exec.file-not-found.hf"), "OSError: Can't load tokenizer for '/models/tok'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same name.")
	not regex.match(_re("exec.file-not-found.hf"), "loading configuration file config.json from cache at /root/.cache/huggingface/hub/models--meta-llama--Llama-2-13b-hf/config.json")
}
