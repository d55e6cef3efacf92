# METADATA
# title: A PersistentVolumeClaim of the job is not bound
# description: |
#   The job's pods mount a PersistentVolumeClaim that is missing, not bound
#   to a volume, or whose volume cannot be provisioned, so the scheduler will
#   not place them and they stay Pending.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.pods}} pod(s) wait for unbound volume claim(s) {{.claims}}: {{.detail}}"
#     zh: "{{.pods}} 个 Pod 在等待未绑定的存储卷声明 {{.claims}}：{{.detail}}"
#   remediation:
#     en: |
#       - Check the claims: `kubectl get pvc -n <namespace>` and `kubectl describe pvc <claim>` (events show provisioning errors).
#       - "not found": create the PersistentVolumeClaim, or fix `claimName` in the job's volumes.
#       - Pending with no provisioner activity: the StorageClass does not exist or has no provisioner; set a valid `storageClassName` or create a matching PersistentVolume.
#       - ReadWriteOnce claims can serve only one node: multi-node jobs that share a dataset need ReadWriteMany storage (NFS, CephFS, Lustre, EFS).
#     zh: |
#       - 检查存储卷声明：`kubectl get pvc -n <namespace>` 和 `kubectl describe pvc <claim>`（事件中会显示供应错误）。
#       - "not found"：创建该 PersistentVolumeClaim，或修正作业 volumes 中的 `claimName`。
#       - 一直 Pending 且没有供应器动作：StorageClass 不存在或没有供应器；请设置有效的 `storageClassName`，或创建匹配的 PersistentVolume。
#       - ReadWriteOnce 的卷只能挂到一个节点上：多节点共享数据集的作业需要 ReadWriteMany 存储（NFS、CephFS、Lustre、EFS）。
#   zh:
#     title: 作业的 PersistentVolumeClaim 未绑定
#     description: |
#       作业的 Pod 挂载了一个不存在、尚未绑定到卷，或者卷无法供应的 PersistentVolumeClaim，调度器因此不会放置这些 Pod，它们一直处于 Pending。
package traindoc.rules.sched.volume_unbound

import data.traindoc.lib.k8s

_list(x) := x if is_array(x)

else := []

# Scheduler wordings across versions, and the volume binder's timeouts.
_unbound := `(?i)unbound immediate PersistentVolumeClaims|pod has unbound (immediate )?PersistentVolumeClaims|persistentvolumeclaim "[^"]+" not found|persistentvolumeclaim "[^"]+" is being deleted|didn't find available persistent volumes to bind|binding volumes: (timed out waiting for the condition|context deadline exceeded)|waiting for a volume to be created`

_claim_in := `persistentvolumeclaim "([^"]+)"`

_pending contains pod if {
	some pod in _list(input.pods)
	pod.phase == "Pending"
}

_cond_hits contains [pod, c] if {
	some pod in _pending
	some c in pod.conditions
	c.type == "PodScheduled"
	c.status == "False"
	regex.match(_unbound, object.get(c, "message", ""))
}

_event_hits contains e if {
	some e in _list(input.events)
	e.object.kind == "Pod"
	e.type == "Warning"
	e.reason in {"FailedScheduling", "FailedMount"}
	regex.match(_unbound, e.message)
	not _cond_for(e.object.name)
}

_cond_for(name) if {
	some h in _cond_hits
	h[0].name == name
}

# Events on the claims themselves, while pods wait: provisioning failures,
# and an external provisioner that has not created the volume for minutes.
_pvc_hits contains e if {
	count(_pending) > 0
	some e in _list(input.events)
	e.object.kind == "PersistentVolumeClaim"
	_pvc_stuck(e)
}

_pvc_stuck(e) if {
	e.type == "Warning"
	e.reason in {"ProvisioningFailed", "FailedBinding", "ClaimLost"}
}

_pvc_stuck(e) if {
	e.reason == "ExternalProvisioning"
	k8s.seconds_between(k8s.event_time(e), object.get(e, "lastTime", input.now)) >= 300
}

_claims := ({n |
	some h in _cond_hits
	some m in regex.find_all_string_submatch_n(_claim_in, h[1].message, -1)
	n := m[1]
} | {n |
	some e in _event_hits
	some m in regex.find_all_string_submatch_n(_claim_in, e.message, -1)
	n := m[1]
}) | {e.object.name | some e in _pvc_hits}

_messages := array.concat(
	[[object.get(h[1], "lastTransitionTime", ""), h[1].message] | some h in _cond_hits],
	array.concat(
		[[k8s.event_time(e), e.message] | some e in _event_hits],
		[[k8s.event_time(e), e.message] | some e in _pvc_hits],
	),
)

_params := {
	"pods": count(_waiting_pods),
	"claims": _claim_list,
	"detail": trim_space(split(sort(_messages)[0][1], " preemption:")[0]),
}

_waiting_pods contains name if {
	some h in _cond_hits
	name := h[0].name
}

_waiting_pods contains e.object.name if {
	some e in _event_hits
}

_waiting_pods contains p.name if {
	count(_pvc_hits) > 0
	some p in _pending
}

_claim_list := concat(", ", sort(_claims)) if count(_claims) > 0

else := "(unnamed)"

_owner := "user" if {
	some m in _messages
	regex.match(`not found`, m[1])
} else := "platform"

findings contains f if {
	some h in _cond_hits
	[pod, c] := h
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": _params,
		"evidence": [k8s.condition_evidence(k8s.pod_ref(pod), "status.conditions[PodScheduled]", c)],
		"time": object.get(c, "lastTransitionTime", ""),
		"owner": _owner,
	}
}

findings contains f if {
	some e in (_event_hits | _pvc_hits)
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": _params,
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
		"owner": _owner,
	}
}
