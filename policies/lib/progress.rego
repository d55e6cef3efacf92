# Progress patterns: how the log scanner reads steps, loss and throughput
# from the common trainers' progress lines (tqdm bars, Hugging Face Trainer
# dicts, DeepSpeed, Megatron, Ray Train result tables, plain "step N" and
# "loss x" lines). This package emits no findings.
package traindoc.lib.progress

progress_patterns contains {
	"id": "progress.tqdm",
	"hint": "%|",
	"pattern": `^\s*(?:Epoch \d+:\s*)?\d+%\|[^|]*\|\s*(?P<step>\d+)/(?P<total>\d+)\s*\[[^\],]*(?:,\s*(?P<value>[\d.]+)(?P<unit>s/it|it/s))?(?:[^\]]*?\b(?:train_)?loss=(?P<loss>[-+\d.eE]+|nan|inf))?`,
}

progress_patterns contains {
	"id": "progress.hf-loss",
	"hint": "'loss': ",
	"pattern": `[{,] ?'loss': (?P<loss>[-+\d.eE]+|nan|inf)`,
}

progress_patterns contains {
	"id": "progress.hf-summary",
	"hint": "samples_per_second': ",
	"pattern": `'(?:train_)?samples_per_second': (?P<value>[\d.]+)`,
	"unit": "samples/s",
}

progress_patterns contains {
	"id": "progress.deepspeed-step",
	"hint": ", skipped=",
	"pattern": `\[Rank \d+\] step=(?P<step>\d+), skipped=\d+`,
}

progress_patterns contains {
	"id": "progress.deepspeed-throughput",
	"hint": "CurrSamplesPerSec=",
	"pattern": `global_step=(?P<step>\d+), RunningAvgSamplesPerSec=[\d.]+, CurrSamplesPerSec=(?P<value>[\d.]+)`,
	"unit": "samples/s",
}

progress_patterns contains {
	"id": "progress.megatron",
	"hint": "elapsed time per iteration (ms): ",
	"pattern": `iteration\s+(?P<step>\d+)/\s*(?P<total>\d+) \|.*elapsed time per iteration \(ms\): (?P<value>[\d.]+)(?:.*?\blm loss: (?P<loss>[-+\d.eE]+|nan|inf))?`,
	"unit": "ms/it",
}

progress_patterns contains {
	"id": "progress.ray-train-iteration",
	"hint": "training_iteration",
	"pattern": `(?:'training_iteration': |│ training_iteration\s+)(?P<step>\d+)`,
}

progress_patterns contains {
	"id": "progress.ray-train-loss",
	"hint": "│ loss ",
	"pattern": `│ loss\s+(?P<loss>[-+\d.eE]+|nan|inf)\s+│`,
}

progress_patterns contains {
	"id": "progress.plain-step",
	"hint": "step",
	"pattern": `(?i)\bstep[\s:=]+(?P<step>\d+)(?:\s*/\s*(?P<total>\d+))?`,
}

progress_patterns contains {
	"id": "progress.plain-loss",
	"hint": "loss",
	"pattern": `(?i)\b(?:train_)?loss[\s:=]+(?P<loss>[-+]?\d[\d.]*(?:e[-+]?\d+)?|nan|inf)\b`,
}

progress_patterns contains {
	"id": "progress.plain-rate",
	"hint": "/s",
	"pattern": `(?i)\b(?P<unit>tokens/s(?:ec)?|tok/s|samples/s(?:ec)?)[\s:=]+(?P<value>[\d.]+)`,
}
