package traindoc.rules.exec.permission_denied_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.permission_denied

test_fires_on_gated_repo if {
	pod := testing.pod(testing.failed, {"exec.permission-denied.remote": testing.match("huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/config.json. Access to model meta-llama/Llama-2-7b-hf is restricted. You must have access to it and be authenticated to access it. Please log in.")}, {})
	fs := permission_denied.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == {"en": "a gated or private Hugging Face repository", "zh": "受限或私有的 Hugging Face 仓库"}
}

test_fires_on_path if {
	pod := testing.pod(testing.failed, {"exec.permission-denied.fs": testing.match("PermissionError: [Errno 13] Permission denied: '/checkpoints/run1'")}, {})
	fs := permission_denied.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == {"en": "a file or directory", "zh": "文件或目录"}
}

test_quiet_on_pip_root_warning if {
	not regex.match(testing.pattern(permission_denied.signatures, "exec.permission-denied.fs"), "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager.")
	pod := testing.pod({"state": "terminated", "exitCode": 0}, {}, {})
	count(permission_denied.findings) == 0 with input as {"phase": "Succeeded", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(permission_denied.signatures, "exec.permission-denied.remote"), "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the PutObject operation: Access Denied")
	regex.match(testing.pattern(permission_denied.signatures, "exec.permission-denied.remote"), "botocore.exceptions.ClientError: An error occurred (403) when calling the HeadObject operation: Forbidden")
}

# NCCL's shm_open warning is the failure although the log ends with NCCL's
# "unhandled system error".
test_fires_on_nccl_shm_open_denied if {
	pod := testing.pod(testing.failed, {"exec.permission-denied.shm": testing.match("node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied")}, {})
	fs := permission_denied.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == {"en": "the shared-memory directory /dev/shm", "zh": "共享内存目录 /dev/shm"}
}
