# METADATA
# title: Same id, other package
# description: Replaces the built-in rule by id.
# custom:
#   id: sched-insufficient-gpu
#   category: sched.insufficient-gpu
#   severity: info
#   owner: platform
#   remediation:
#     en: Nothing.
#     zh: 无。
#   zh:
#     title: 同一编号
#     description: 按编号替换内置规则。
package traindoc.rules.site.gpu

findings contains {"params": {}} if {
	input.name == "x"
}
