# METADATA
# title: Helpers about how a replica starts its training processes
# description: |
#   What a replica's pod template and the job's spec say about the
#   processes each pod runs: the processes per pod a launcher starts
#   (the job's nprocPerNode, a torchrun config, `--nproc_per_node` on the
#   command line, PET_NPROC_PER_NODE) and the DataLoader workers the
#   command line asks for. This package emits no findings.
package traindoc.lib.launch

# nproc(g) is [count, setting, field] for the processes per pod of
# replica group g, when a setting names a number: the job-level setting
# wins, then the T9k torchrun config, then the launcher's command line in
# the group's containers, then the environment the training operator sets.
nproc(g) := [n, "nprocPerNode", "spec"] if {
	g
	n := object.get(object.get(input, "spec", {}), "procsPerNodeCount", 0)
	n > 0
} else := [n, "torchrunConfig.procPerNode", "spec.torchrunConfig.procPerNode"] if {
	p := object.get(object.get(object.get(input, "spec", {}), "torchrun", {}), "procPerNode", "")
	regex.match(`^[0-9]+$`, p)
	n := to_number(p)
} else := x if {
	xs := [[to_number(m[0][1]), "--nproc_per_node", sprintf("template.containers[%s]", [c.name])] |
		some c in object.get(g.template, "containers", [])
		m := regex.find_all_string_submatch_n(`--nproc[_-]per[_-]node[= ]+([0-9]+)\b`, command_line(c), 1)
		count(m) > 0
	]
	count(xs) > 0
	x := xs[0]
} else := x if {
	xs := [[to_number(p), "PET_NPROC_PER_NODE", sprintf("template.containers[%s].env", [c.name])] |
		some c in object.get(g.template, "containers", [])
		p := object.get(object.get(c, "env", {}), "PET_NPROC_PER_NODE", "")
		regex.match(`^[0-9]+$`, p)
	]
	count(xs) > 0
	x := xs[0]
}

# loader_workers(g) is [count, flag, field] for the DataLoader workers a
# container's command line asks for: `--num_workers 8`, `--num-workers=8`,
# Hugging Face's `--dataloader_num_workers 8`, or the `--workers 8` of the
# torchvision and timm reference scripts. Only a count above zero counts.
loader_workers(g) := xs[0] if {
	xs := [[to_number(m[2]), m[1], sprintf("template.containers[%s]", [c.name])] |
		some c in object.get(g.template, "containers", [])
		some m in regex.find_all_string_submatch_n(`(?:^|\s)(--(?:dataloader[_-])?num[_-]workers|--workers)(?:=|\s+)([0-9]+)\b`, command_line(c), -1)
		to_number(m[2]) > 0
	]
	count(xs) > 0
}

# command_line(c) is a container's command and arguments as one line.
command_line(c) := concat(" ", array.concat(object.get(c, "command", []), object.get(c, "args", [])))
