# METADATA
# title: Checkpoint writes throttled by the object store
# description: The object store answered checkpoint uploads with SlowDown, so checkpoints lag or fail.
# custom:
#   category: progress.checkpoint-stale
#   severity: warning
#   owner: platform
#   message:
#     en: "{{.count}} SlowDown replies while writing checkpoints"
#     zh: "写检查点时对象存储返回 {{.count}} 次 SlowDown"
#   remediation:
#     en: |
#       - Spread checkpoint writes over time, or ask for a higher request rate on the bucket.
#     zh: |
#       - 错开检查点写入时间，或为存储桶申请更高的请求速率。
#   zh:
#     title: 检查点写入被对象存储限流
#     description: 对象存储对检查点上传返回 SlowDown，检查点因此滞后或失败。
package traindoc.rules.storage.ckpt_throttled

# The engine scans every log once for the signatures all rules declare and
# hands each rule the lines that matched.
signatures contains {
	"id": "storage.ckpt-throttled",
	"pattern": `SlowDown: Please reduce your request rate`,
	"hint": "SlowDown",
}

findings contains f if {
	some pod in input.pods
	some c in pod.containers
	some l in c.logs
	m := l.matches["storage.ckpt-throttled"]
	f := {
		"subject": {"kind": "Pod", "name": pod.name, "container": c.name},
		"params": {"count": m.count},
	}
}
