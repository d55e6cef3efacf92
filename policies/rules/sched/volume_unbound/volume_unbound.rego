# METADATA
# title: A PersistentVolumeClaim of the job is not bound
# description: |
#   The job's pods mount a PersistentVolumeClaim that is missing, not bound
#   to a volume, or whose volume cannot be provisioned, so the scheduler will
#   not place them and they stay Pending.
# custom:
#   severity: error
#   owner: platform
#   explains: [sched.gang-pending]
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
import data.traindoc.lib.sched

# Scheduler wordings across versions ("pod has unbound
# PersistentVolumeClaims" before 1.12, "pod has unbound immediate
# PersistentVolumeClaims" up to 1.26, "persistentvolumeclaim \"x\" not
# found" since 1.27), claims whose volume was deleted ("pvc(s) bound to
# non-existent pv(s)"), storage capacity tracking that finds no node able
# to provision the volume ("did not have enough free storage", 1.24+),
# and the volume binder's timeouts.
_unbound := `(?i)unbound immediate PersistentVolumeClaims|pod has unbound (immediate )?PersistentVolumeClaims|persistentvolumeclaim "[^"]+" not found|persistentvolumeclaim "[^"]+" is being deleted|didn't find available persistent volumes to bind|pvc\(s\) bound to non-existent pv\(s\)|node\(s\) did not have enough free storage|binding volumes: (timed out waiting for the condition|context deadline exceeded)|waiting for a volume to be created`

_claim_in := `persistentvolumeclaim "([^"]+)"`

# The scheduler's current words about waiting pods.
_sched_hits contains m if {
	some m in sched.messages
	regex.match(_unbound, m.text)
}

# The kubelet's mount failures on pods that still wait.
_mount_hits contains m if {
	some e in sched.events
	e.object.kind == "Pod"
	e.type == "Warning"
	e.reason == "FailedMount"
	regex.match(_unbound, e.message)
	sched.live_pod_event(e)
	m := {"pod": e.object.name, "text": e.message, "time": k8s.event_time(e), "evidence": k8s.event_evidence(e)}
}

_pod_hits := _sched_hits | _mount_hits

# Events on the claims themselves, while pods wait: provisioning failures,
# and an external provisioner that has not created the volume for minutes.
_pvc_hits contains e if {
	count(sched.waiting_pods) > 0
	some e in sched.events
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

_claims := {n |
	some m in _pod_hits
	some x in regex.find_all_string_submatch_n(_claim_in, m.text, -1)
	n := x[1]
} | {e.object.name | some e in _pvc_hits}

_all_messages := array.concat([[m.time, m.text] | some m in _pod_hits], [[k8s.event_time(e), e.message] | some e in _pvc_hits])

_waiting_names := {m.pod | some m in _pod_hits} | {p.name | count(_pvc_hits) > 0; some p in sched.waiting_pods}

_params := {
	"pods": count(_waiting_names),
	"claims": _claim_list,
	"detail": sched.short(sort(_all_messages)[0][1]),
}

_claim_list := concat(", ", sort(_claims)) if count(_claims) > 0

else := "(unnamed)"

_owner := "user" if {
	some m in _all_messages
	regex.match(`not found`, m[1])
} else := "platform"

findings contains f if {
	some m in _pod_hits
	f := {
		"subject": {"kind": "Pod", "name": m.pod},
		"params": _params,
		"evidence": [m.evidence],
		"time": m.time,
		"owner": _owner,
	}
}

findings contains f if {
	some e in _pvc_hits
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": _params,
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
		"owner": _owner,
	}
}
