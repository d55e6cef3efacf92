# METADATA
# title: Site-specific GPU shortage rule
# description: Replaces the built-in rule.
# custom:
#   category: sched.insufficient-gpu
#   severity: warning
#   owner: platform
#   remediation:
#     en: Ask the GPU team.
#     zh: 联系 GPU 团队。
#   zh:
#     title: 本站 GPU 不足规则
#     description: 替换内置规则。
package traindoc.rules.sched.insufficient_gpu

findings contains {"params": {"why": "override"}} if {
	input.name == "x"
}
