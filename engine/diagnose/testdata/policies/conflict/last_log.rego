# METADATA
# title: Last log line (a rule with a bug)
# description: |
#   A user rule whose helper yields one value per log file: for a container
#   with both a current and a previous log it raises eval_conflict_error.
# custom:
#   category: exec.python-error
#   severity: warning
#   owner: user
#   remediation:
#     en: Nothing.
#     zh: 无。
#   zh:
#     title: 最后一行日志（有缺陷的规则）
#     description: 一条有缺陷的用户规则。
package traindoc.rules.site.last_log

_log(c) := lf if {
	some lf in c.logs
}

findings contains f if {
	some pod in input.pods
	some c in pod.containers
	lf := _log(c)
	f := {"subject": {"kind": "Pod", "name": pod.name, "container": c.name}, "params": {"file": lf.file}}
}
