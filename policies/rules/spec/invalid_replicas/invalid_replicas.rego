# METADATA
# title: Replica counts that cannot work
# description: |
#   The job's replica specification breaks a rule of its kind: a PyTorchJob,
#   XGBoostJob or TensorStack job with more or fewer than one master, an
#   MPIJob without exactly one launcher, a replica group with no replicas, or
#   elastic bounds where the minimum exceeds the maximum or the replica count
#   lies outside them. The operator rejects such a job or runs it in a shape
#   the training script does not expect.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "Replica spec of {{.group}} is invalid: {{.value}}, but the {{.kind}} needs {{.allowed}}."
#     zh: "{{.group}} 的副本配置无效：当前为 {{.value}}，而 {{.kind}} 要求 {{.allowed}}。"
#   remediation:
#     en: |
#       - Fix the replica count in the job spec (`kubectl get <kind> <name> -o yaml`): a PyTorchJob, XGBoostJob or PyTorchTrainingJob has exactly one Master; an MPIJob exactly one Launcher.
#       - Give every worker group at least one replica, or remove the group.
#       - For elastic training keep `minReplicas <= replicas <= maxReplicas` (PyTorchJob `elasticPolicy`, T9k `elastic`, Ray `workerGroupSpecs`).
#       - Delete and resubmit the job: most operators do not pick up a corrected replica spec on a job that already failed.
#     zh: |
#       - 修改作业定义中的副本数（`kubectl get <kind> <name> -o yaml`）：PyTorchJob、XGBoostJob 和 PyTorchTrainingJob 必须恰好有一个 Master，MPIJob 必须恰好有一个 Launcher。
#       - 每个 Worker 组至少设置一个副本，或者删除该组。
#       - 弹性训练需满足 `minReplicas <= replicas <= maxReplicas`（PyTorchJob 的 `elasticPolicy`、T9k 的 `elastic`、Ray 的 `workerGroupSpecs`）。
#       - 删除并重新提交作业：大多数 Operator 不会对已经失败的作业重新应用修正后的副本配置。
#   zh:
#     title: 副本配置无法工作
#     description: |
#       作业的副本配置违反了该类型作业的约束：PyTorchJob、XGBoostJob 或 TensorStack 作业的 Master 数量不是 1，MPIJob 的 Launcher 数量不是 1，某个副本组的副本数为 0，或者弹性训练的最小值大于最大值、副本数超出上下限。Operator 会拒绝这样的作业，或者以训练脚本预料之外的规模运行它。
package traindoc.rules.spec.invalid_replicas

import data.traindoc.lib.k8s

# Replica types that must have exactly one replica, by job kind (lower case).
_exactly_one := {
	"PyTorchJob": {"master"},
	"XGBoostJob": {"master"},
	"PyTorchTrainingJob": {"master"},
	"MPIJob": {"launcher"},
	"TFJob": {"chief", "master", "evaluator"},
}

# Kinds whose every replica group needs at least one replica. Ray worker
# groups may legitimately be scaled to zero.
_needs_replicas := {"PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "PyTorchTrainingJob", "TrainJob"}

_spec_field := {
	"PyTorchJob": "spec.pytorchReplicaSpecs",
	"TFJob": "spec.tfReplicaSpecs",
	"MPIJob": "spec.mpiReplicaSpecs",
	"XGBoostJob": "spec.xgbReplicaSpecs",
	"PaddleJob": "spec.paddleReplicaSpecs",
	"PyTorchTrainingJob": "spec.replicaSpecs",
	"RayJob": "spec.rayClusterSpec.workerGroupSpecs",
	"RayCluster": "spec.workerGroupSpecs",
	"TrainJob": "spec.trainer",
}

_groups := g if {
	is_array(input.replicas)
	g := input.replicas
} else := []

_field(group) := sprintf("%s[%s]", [object.get(_spec_field, input.kind, "spec"), group])

_job := {"kind": input.kind, "name": input.name}

_finding(group, value, allowed, ev) := {
	"subject": _job,
	"params": {"kind": input.kind, "group": group, "value": value, "allowed": allowed},
	"evidence": [ev],
	"time": object.get(input, "createdAt", ""),
}

# A master, launcher or chief that must be unique.
findings contains f if {
	some g in _groups
	lower(g.type) in object.get(_exactly_one, input.kind, set())
	g.expected != 1
	not _optional_zero(g)
	value := sprintf("replicas=%d", [g.expected])
	f := _finding(g.type, value, "replicas=1", k8s.field_evidence(k8s.job_ref, _field(g.type), value))
}

# TFJob chief and evaluator may be absent (0) but never more than one; the
# others must be exactly one.
_optional_zero(g) if {
	input.kind == "TFJob"
	g.expected == 0
}

# A group with no replicas.
findings contains f if {
	input.kind in _needs_replicas
	some g in _groups
	g.expected < 1
	not lower(g.type) in object.get(_exactly_one, input.kind, set())
	not _elastic_bounds(g)
	value := sprintf("replicas=%d", [g.expected])
	f := _finding(g.type, value, "replicas>=1", k8s.field_evidence(k8s.job_ref, _field(g.type), value))
}

_elastic_bounds(g) if g.minReplicas

# Elastic bounds of the whole job.
findings contains f if {
	e := input.spec.elastic
	lo := e.minReplicas
	hi := e.maxReplicas
	lo > hi
	value := sprintf("minReplicas=%d, maxReplicas=%d", [lo, hi])
	f := _finding("elastic", value, "minReplicas<=maxReplicas", k8s.field_evidence(k8s.job_ref, "spec.elastic", value))
}

findings contains f if {
	e := input.spec.elastic
	lo := e.minReplicas
	hi := e.maxReplicas
	lo <= hi
	n := e.expectedReplicas
	_outside(n, lo, hi)
	value := sprintf("expectedReplicas=%d, minReplicas=%d, maxReplicas=%d", [n, lo, hi])
	f := _finding("elastic", value, sprintf("%d<=expectedReplicas<=%d", [lo, hi]), k8s.field_evidence(k8s.job_ref, "spec.elastic", value))
}

# PyTorchJob elasticPolicy bounds apply to the Worker group.
findings contains f if {
	input.kind == "PyTorchJob"
	e := input.spec.elastic
	lo := e.minReplicas
	hi := e.maxReplicas
	lo <= hi
	some g in _groups
	lower(g.type) == "worker"
	not g.minReplicas
	_outside(g.expected, lo, hi)
	value := sprintf("replicas=%d, elasticPolicy minReplicas=%d, maxReplicas=%d", [g.expected, lo, hi])
	f := _finding(g.type, value, sprintf("%d<=replicas<=%d", [lo, hi]), k8s.field_evidence(k8s.job_ref, _field(g.type), value))
}

# Per-group bounds (Ray worker groups, JobSet-style groups).
findings contains f if {
	some g in _groups
	lo := g.minReplicas
	hi := g.maxReplicas
	lo > hi
	value := sprintf("minReplicas=%d, maxReplicas=%d", [lo, hi])
	f := _finding(g.type, value, "minReplicas<=maxReplicas", k8s.field_evidence(k8s.job_ref, _field(g.type), value))
}

findings contains f if {
	some g in _groups
	lo := g.minReplicas
	hi := g.maxReplicas
	lo <= hi
	_outside(g.expected, lo, hi)
	value := sprintf("replicas=%d, minReplicas=%d, maxReplicas=%d", [g.expected, lo, hi])
	f := _finding(g.type, value, sprintf("%d<=replicas<=%d", [lo, hi]), k8s.field_evidence(k8s.job_ref, _field(g.type), value))
}

_outside(n, lo, _) if n < lo

_outside(n, _, hi) if n > hi
