package traindoc.rules.exec.permission_denied_test

import data.traindoc.rules.exec.permission_denied

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
	some s in permission_denied.signatures
	s.id == id
}

test_fires_on_gated_repo if {
	pod := _pod(_failed, {"exec.permission-denied.remote": _m("huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/config.json. Access to model meta-llama/Llama-2-7b-hf is restricted. You must have access to it and be authenticated to access it. Please log in.")}, {})
	fs := permission_denied.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == {"en": "a gated or private Hugging Face repository", "zh": "受限或私有的 Hugging Face 仓库"}
}

test_fires_on_path if {
	pod := _pod(_failed, {"exec.permission-denied.fs": _m("PermissionError: [Errno 13] Permission denied: '/checkpoints/run1'")}, {})
	fs := permission_denied.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == {"en": "a file or directory", "zh": "文件或目录"}
}

test_quiet_on_pip_root_warning if {
	not regex.match(_re("exec.permission-denied.fs"), "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager.")
	pod := _pod({"state": "terminated", "exitCode": 0}, {}, {})
	count(permission_denied.findings) == 0 with input as {"phase": "Succeeded", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(_re("exec.permission-denied.remote"), "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the PutObject operation: Access Denied")
	regex.match(_re("exec.permission-denied.remote"), "botocore.exceptions.ClientError: An error occurred (403) when calling the HeadObject operation: Forbidden")
}
