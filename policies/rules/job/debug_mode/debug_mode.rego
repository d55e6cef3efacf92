# METADATA
# title: The job runs in debug mode
# description: |
#   A TensorStack job with runMode.debug enabled creates its replicas but
#   runs a debug command (by default "sleep inf") instead of training. Empty
#   logs and idle GPUs are what debug mode does; the job will not train
#   until debug mode is turned off. Debug mode is a state the user chose,
#   not a fault; idle GPUs it holds are reported as its consequence.
# custom:
#   severity: info
#   owner: user
#   message:
#     en: "The job runs in debug mode: its replicas do not train."
#     zh: "作业处于调试模式：副本不会进行训练。"
#   remediation:
#     en: |
#       - When you are done debugging, set `spec.runMode.debug.enable: false` (or remove `runMode.debug`) and resubmit the job.
#       - While debugging, enter a replica with `kubectl exec -it <pod> -- bash` and start training by hand.
#       - Debug pods hold their GPUs for as long as they exist: delete the job when you no longer need it.
#     zh: |
#       - 调试完成后，设置 `spec.runMode.debug.enable: false`（或删除 `runMode.debug`）并重新提交作业。
#       - 调试期间，可用 `kubectl exec -it <pod> -- bash` 进入副本并手动启动训练。
#       - 调试 Pod 存在期间会一直占用 GPU：不再需要时请删除该作业。
#   zh:
#     title: 作业处于调试模式
#     description: |
#       开启了 runMode.debug 的 TensorStack 作业会创建副本，但运行调试命令（默认为 "sleep inf"）而不是训练。日志为空、GPU 空闲正是调试模式的表现；关闭调试模式之前作业不会训练。调试模式是用户选择的状态而不是故障；它占用却闲置的 GPU 作为其后果报告。
package traindoc.rules.job.debug_mode

import data.traindoc.lib.k8s

findings contains f if {
	object.get(object.get(object.get(input, "spec", {}), "runMode", {}), "debug", false) == true
	not object.get(input, "phase", "") in {"Succeeded", "Failed"}
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {},
		"evidence": [k8s.field_evidence(k8s.job_ref, "spec.runMode.debug.enable", "debug mode enabled")],
		"time": object.get(input, "createdAt", ""),
	}
}
