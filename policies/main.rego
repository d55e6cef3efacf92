# METADATA
# title: Rule router
# description: |
#   The one entry point the engine evaluates. It gathers the findings of every
#   rule package under data.traindoc.rules.<area>.<name>, and the log
#   signatures and progress patterns they declare, so that adding a rule file
#   needs no change anywhere else.
package traindoc.main

# findings holds every rule's findings, tagged with the rule's package path.
findings contains f if {
	some area, name
	some x in data.traindoc.rules[area][name].findings
	f := object.union(x, {"rule_path": [area, name]})
}

# signatures are the log patterns rules ask the engine to scan for. Shared
# libraries declare the context signatures several rules read.
signatures contains s if {
	some area, name
	some s in data.traindoc.rules[area][name].signatures
}

signatures contains s if {
	some name
	some s in data.traindoc.lib[name].signatures
}

# progress_patterns tell the engine how to read steps, loss and throughput.
progress_patterns contains p if {
	some area, name
	some p in data.traindoc.rules[area][name].progress_patterns
}

progress_patterns contains p if {
	some name
	some p in data.traindoc.lib[name].progress_patterns
}
