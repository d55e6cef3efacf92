# METADATA
# title: Access denied
# description: |
#   A file, directory or remote service refused access: PermissionError /
#   EACCES on a path (a checkpoint or output directory the container user
#   cannot write), a read-only file system (EROFS, Errno 30), "Permission
#   denied" from the shell, NCCL refused /dev/shm ("shm_open failed :
#   Permission denied"), S3/GCS AccessDenied or 403, or a Hugging Face
#   gated or private repository requiring a token (401/403).
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "Access was denied: {{.what.en}}."
#     zh: "访问被拒绝：{{.what.zh}}。"
#   remediation:
#     en: |
#       - For paths on volumes: the container user (`securityContext.runAsUser`) must be allowed to write there; set `fsGroup` in the pod securityContext or fix ownership of the PVC.
#       - For S3/GCS: check the pod's service account / IRSA or workload identity role grants the bucket and prefix (Get/Put/List), and the region.
#       - For Hugging Face gated models: accept the license on the model page with the account whose token the job uses, and pass `HF_TOKEN` from a Secret.
#       - For scripts: make the entrypoint executable or call it through `bash`/`python`.
#       - "Read-only file system": the path is on a read-only mount (a ConfigMap, a `readOnly` volume, `readOnlyRootFilesystem`); point caches (`HF_HOME`, `TRITON_CACHE_DIR`) and outputs at a writable emptyDir or PVC.
#       - NCCL denied /dev/shm: the container user must be able to create files there; mount a memory-backed emptyDir at /dev/shm (it is writable by every user) instead of a host path or a restricted volume.
#     zh: |
#       - 卷上的路径：容器用户（`securityContext.runAsUser`）必须有写权限；在 Pod 的 securityContext 中设置 `fsGroup`，或修正 PVC 的属主。
#       - S3/GCS：检查 Pod 的服务账号 / IRSA 或 workload identity 角色是否授予了该桶和前缀的权限（Get/Put/List），以及区域是否正确。
#       - Hugging Face 受限模型：用作业所用 token 对应的账号在模型页面接受许可协议，并从 Secret 传入 `HF_TOKEN`。
#       - 脚本：给入口脚本加上可执行权限，或通过 `bash`/`python` 调用。
#       - "Read-only file system"：该路径位于只读挂载上（ConfigMap、`readOnly` 卷、`readOnlyRootFilesystem`）；把缓存（`HF_HOME`、`TRITON_CACHE_DIR`）和输出指向可写的 emptyDir 或 PVC。
#       - NCCL 无法访问 /dev/shm：容器用户必须能在其中创建文件；在 /dev/shm 挂载基于内存的 emptyDir（所有用户都可写），不要使用主机路径或受限的卷。
#   zh:
#     title: 访问被拒绝
#     description: |
#       文件、目录或远程服务拒绝访问：路径上的 PermissionError / EACCES（容器用户无法写入检查点或输出目录）、只读文件系统（EROFS、Errno 30）、shell 的 "Permission denied"、NCCL 无权访问 /dev/shm（"shm_open failed : Permission denied"）、S3/GCS 的 AccessDenied 或 403，或需要 token 的 Hugging Face 受限/私有仓库（401/403）。
package traindoc.rules.exec.permission_denied

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.python

signatures contains {
	"id": "exec.permission-denied.fs",
	"pattern": `PermissionError|\[Errno 13\]|Permission denied|\bEACCES\b|Read-only file system|\[Errno 30\]|\bEROFS\b|\[Errno 1\] Operation not permitted`,
}

signatures contains {
	"id": "exec.permission-denied.remote",
	"pattern": `AccessDenied|Access Denied|\b40[13] Client Error|\(403\)|Forbidden: 403|GatedRepoError|Access to model .* is restricted|access a gated repo|does not have storage\.objects\.\w+ access|AuthorizationPermissionMismatch|InvalidAccessKeyId|SignatureDoesNotMatch|ExpiredToken`,
}

# NCCL refused /dev/shm ("Call to shm_open failed : Permission denied"):
# NCCL then fails with "unhandled system error", so the warning is the
# failure even though it is not the exception the log ends with.
signatures contains {
	"id": "exec.permission-denied.shm",
	"pattern": `shm_open failed ?: ?Permission denied`,
	"hint": "shm_open failed",
}

# What refused access, in both languages of the message.
_what(t) := {"en": "the shared-memory directory /dev/shm", "zh": "共享内存目录 /dev/shm"} if {
	contains(t, "shm_open failed")
} else := {"en": "a gated or private Hugging Face repository", "zh": "受限或私有的 Hugging Face 仓库"} if {
	regex.match(`(?i)gated|huggingface\.co|Access to model`, t)
} else := {"en": "object storage (S3/GCS/Azure)", "zh": "对象存储（S3/GCS/Azure）"} if {
	regex.match(`AccessDenied|Access Denied|storage\.objects|Authorization|AccessKey|SignatureDoesNotMatch|ExpiredToken|\(403\)|operation: Forbidden`, t)
} else := {"en": "a remote service (HTTP 401/403)", "zh": "远程服务（HTTP 401/403）"} if {
	regex.match(`40[13] Client Error|Forbidden`, t)
} else := {"en": "a read-only file system", "zh": "只读文件系统"} if {
	regex.match(`Read-only file system|Errno 30|EROFS`, t)
} else := {"en": "a file or directory", "zh": "文件或目录"}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := array.concat(
		exec.hits(pod, c, {"exec.permission-denied.shm"}),
		python.decisive_hits(pod, c, exec.hits(pod, c, {"exec.permission-denied.remote", "exec.permission-denied.fs"})),
	)
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"what": _what(exec.sample_text(hs[0]))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}
