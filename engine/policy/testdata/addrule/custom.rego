# METADATA
# title: Checkpoint bucket throttled
# description: The object store refused checkpoint writes.
# custom:
#   id: site-s3-slowdown
#   category: exec.python-error
#   severity: error
#   owner: platform
#   message:
#     en: "{{.count}} SlowDown replies from the object store"
#     zh: "对象存储返回 {{.count}} 次 SlowDown"
#   remediation:
#     en: Spread checkpoint writes.
#     zh: 错开检查点写入。
#   zh:
#     title: 检查点存储被限流
#     description: 对象存储拒绝了检查点写入。
package traindoc.rules.site.s3_slowdown

signatures contains {"id": "site.s3-slowdown", "pattern": `SlowDown: Please reduce your request rate`, "hint": "SlowDown"}

findings contains f if {
	some pod in input.pods
	some c in pod.containers
	some l in c.logs
	m := l.matches["site.s3-slowdown"]
	f := {"subject": {"kind": "Pod", "name": pod.name}, "params": {"count": m.count}}
}
