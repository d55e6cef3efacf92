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

# "global_step" counters: NeMo/Lightning bars ("global_step=1199.0"),
# PaddleOCR ("global_step: 1200"), CleanRL ("global_step=32768").
progress_patterns contains {
	"id": "progress.global-step",
	"hint": "global_step",
	"pattern": `\bglobal_step\s*[:=]\s*(?P<step>\d+)(?:\.0)?\b`,
}

# NeMo's reduced loss in its progress bar.
progress_patterns contains {
	"id": "progress.nemo-loss",
	"hint": "reduced_train_loss=",
	"pattern": `reduced_train_loss=(?P<loss>[-+\d.eE]+|nan|inf)`,
}

# mmengine iteration-based runners ("Iter(train) [ 1200/80000]").
progress_patterns contains {
	"id": "progress.mmengine-iter",
	"hint": "Iter(train)",
	"pattern": `Iter\(train\)\s*\[\s*(?P<step>\d+)/(?P<total>\d+)\]`,
}

# detectron2's EventWriter ("iter: 379  total_loss: 1.707").
progress_patterns contains {
	"id": "progress.detectron2",
	"hint": " iter: ",
	"pattern": `\biter: (?P<step>\d+)\s+total_loss: (?P<loss>[-+\d.eE]+|nan|inf)`,
}
