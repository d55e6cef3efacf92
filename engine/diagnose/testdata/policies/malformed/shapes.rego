# METADATA
# title: Findings of the wrong shape
# description: |
#   A user rule whose findings carry a subject that is a string, an
#   evidence entry that is a number, and an unknown severity and category.
# custom:
#   category: exec.python-error
#   severity: warning
#   owner: user
#   remediation:
#     en: Nothing.
#     zh: 无。
#   zh:
#     title: 形状错误的发现
#     description: 一条有缺陷的用户规则。
package traindoc.rules.site.shapes

findings contains {
	"subject": "a pod",
	"params": {"n": 1},
	"evidence": [7, {"kind": "field", "source": "job", "text": "kept"}],
	"severity": "urgent",
	"category": "exec.made-up",
} if {
	input.kind != ""
}
