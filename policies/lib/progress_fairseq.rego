# Progress patterns for fairseq's trainer, whose lines the common patterns
# of progress.rego miss: its tqdm bar starts with a lower-case "epoch 001:"
# and its simple log format counts updates as "num_updates=N".
# Without them a fairseq job logs no steps, and a caught error it trained
# on after looks like the end of the run. This file emits no findings.
package traindoc.lib.progress

# "epoch 001:  17%|█▋        | 700/4124 [12:50<1:02:46,  1.10s/it, loss=8.9, ...]"
progress_patterns contains {
	"id": "progress.fairseq-tqdm",
	"hint": "epoch ",
	"pattern": `^\s*epoch \d+:\s*\d+%\|[^|]*\|\s*(?P<step>\d+)/(?P<total>\d+)\s*\[[^\],]*(?:,\s*(?P<value>[\d.]+)(?P<unit>s/it|it/s))?`,
}

# "| INFO | train_inner | epoch 001:   1000 / 4124 loss=8.112, ..., num_updates=500, lr=0.0002, ..."
progress_patterns contains {
	"id": "progress.fairseq-updates",
	"hint": "num_updates=",
	"pattern": `\bnum_updates=(?P<step>\d+)\b`,
}
