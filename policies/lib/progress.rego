# Progress patterns: how the log scanner reads steps, loss, throughput,
# checkpoint saves and further metrics from the common trainers' progress
# lines (tqdm bars, Hugging Face Trainer dicts, DeepSpeed, Megatron,
# Lightning, NeMo, Ray Train result tables, plain "step N" and "loss x"
# lines). This package emits no findings.
#
# Groups: step, total, value with unit (or a fixed "unit"), saved_step
# (a checkpoint save), and any other lower-case name is a metric (loss is
# both): the scanner tracks, per log, its reports, where it was last
# finite, where not, and the trailing runs of non-finite and non-zero
# values (see evidence.MetricTrack). Rules read them as
# progress.metrics.<name>.
#
# Every progress line is read by these patterns, so they are the main
# cost of a scan: each starts at a selective literal (the scanner then
# tries it only where that literal occurs) and none has an unbounded
# ".*" between two fields; a line whose fields are far apart is read by
# one small pattern per field.
package traindoc.lib.progress

# A logged number as Python, C++ and Megatron print it, nan and inf in
# any case included.
_num := `[-+]?(?:\d[\d.]*(?:[eE][-+]?\d+)?|(?i:nan|inf(?:inity)?))`

# tqdm bars ("45%|████▌     | 450/1000 [05:00<06:06,  1.50it/s, ...]"),
# Lightning's with an "Epoch N:" prefix. The loss in the postfix is read
# by progress.loss.
progress_patterns contains {
	"id": "progress.tqdm",
	"pattern": `^\s*(?:Epoch \d+:\s*)?\d+%\|[^|]*\|\s*(?P<step>\d+)/(?P<total>\d+)\s*\[[^\],]*(?:,\s*(?P<value>[\d.]+)(?P<unit>s/it|it/s))?`,
}

progress_patterns contains {
	"id": "progress.hf-summary",
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
	"pattern": `global_step=(?P<step>\d+), RunningAvgSamplesPerSec=[\d.]+, CurrSamplesPerSec=(?P<value>[\d.]+)`,
	"unit": "samples/s",
}

# Megatron's report line, one field per pattern: " iteration  100/ 500000
# | consumed samples: ... | elapsed time per iteration (ms): 912.3 | ...
# | lm loss: 7.1E+00 | loss scale: 1.0 | grad norm: 1.234 | number of
# skipped iterations: 0 | number of nan iterations: 0 |". The loss, loss
# scale and grad norm are read by the generic patterns below.
progress_patterns contains {
	"id": "progress.megatron",
	"pattern": `\biteration\s+(?P<step>\d+)/\s*(?P<total>\d+) \|`,
}

progress_patterns contains {
	"id": "progress.megatron-time",
	"pattern": `elapsed time per iteration \(ms\): (?P<value>[\d.]+)`,
	"unit": "ms/it",
}

progress_patterns contains {
	"id": "progress.megatron-skipped",
	"pattern": `number of skipped iterations:\s*(?P<skipped_iters>\d+)\s*\|(?:\s*number of nan iterations:\s*(?P<nan_iters>\d+))?`,
}

progress_patterns contains {
	"id": "progress.ray-train-iteration",
	"pattern": `(?:'training_iteration': |│ training_iteration\s+)(?P<step>\d+)`,
}

progress_patterns contains {
	"id": "progress.ray-train-loss",
	"hint": "│ loss ",
	"pattern": sprintf(`│ loss\s+(?P<loss>%s)\s+│`, [_num]),
}

progress_patterns contains {
	"id": "progress.plain-step",
	"pattern": `(?i)\bstep[\s:=]+(?P<step>\d+)(?:\s*/\s*(?P<total>\d+))?`,
}

# The training loss under the names trainers give it: "loss 3.09",
# "loss=nan" (tqdm postfix), "'loss': 1.92" (Hugging Face), "lm loss:
# NAN" (Megatron), "train/loss: ...". Validation and evaluation losses
# (eval_loss, val_loss) are not it. The match starts at "loss", so that
# the scanner tries it only there.
progress_patterns contains {
	"id": "progress.loss",
	"pattern": sprintf(`(?i)\bloss'?%s(?P<loss>%s)\b`, [_sep, _num]),
}

# ... and with a prefix: "train_loss=2.31" (Lightning),
# "reduced_train_loss=nan" (NeMo), "total_loss: 1.7", "avg_loss",
# "mean_loss".
progress_patterns contains {
	"id": "progress.loss-prefixed",
	"pattern": sprintf(`(?i)\b(?:reduced_train|train|total|avg|mean)_loss'?%s(?P<loss>%s)\b`, [_sep, _num]),
}

# What separates a name from its value: "name: v", "name=v", "name v",
# "'name': v", "name=tensor(v".
_sep := `(?:\s*[:=]\s*|\s+)'?(?:tensor\()?`

# The gradient norm: "'grad_norm': nan" (Hugging Face), "grad norm: 0.74"
# (Megatron), "grad_norm 0.825" (plain loops), "grad_norm: 2.5099"
# (mmengine), "grad_norm=tensor(nan)".
progress_patterns contains {
	"id": "progress.grad-norm",
	"pattern": sprintf(`(?i)\bgrad[_ ]norm'?%s(?P<grad_norm>%s)\b`, [_sep, _num]),
}

# The fp16 loss scale: "loss scale: 65536.0" (Megatron), "loss_scale
# 65536.0", DeepSpeed's "Attempted loss scale: 65536".
progress_patterns contains {
	"id": "progress.loss-scale",
	"pattern": sprintf(`(?i)\bloss[_ ]scale'?%s(?P<loss_scale>%s)\b`, [_sep, _num]),
}

progress_patterns contains {
	"id": "progress.plain-rate",
	"pattern": `(?i)\b(?P<unit>tokens/s(?:ec)?|tok/s|samples/s(?:ec)?)[\s:=]+(?P<value>[\d.]+)`,
}

# "global_step" counters: NeMo/Lightning bars ("global_step=1199.0"),
# PaddleOCR ("global_step: 1200"), CleanRL ("global_step=32768").
progress_patterns contains {
	"id": "progress.global-step",
	"pattern": `\bglobal_step\s*[:=]\s*(?P<step>\d+)(?:\.0)?\b`,
}

# mmengine iteration-based runners ("Iter(train) [ 1200/80000]").
progress_patterns contains {
	"id": "progress.mmengine-iter",
	"pattern": `Iter\(train\)\s*\[\s*(?P<step>\d+)/(?P<total>\d+)\]`,
}

# detectron2's EventWriter ("iter: 379  total_loss: 1.707").
progress_patterns contains {
	"id": "progress.detectron2",
	"pattern": sprintf(`\biter: (?P<step>\d+)\s+total_loss: (?P<loss>%s)`, [_num]),
}

# Checkpoint saves. Hugging Face Trainer "Saving model checkpoint to
# /out/checkpoint-500" (or tmp-checkpoint-500 while it is written);
# DeepSpeed "[Rank 0] Saving model checkpoint:
# /ckpt/global_step500/mp_rank_00_model_states.pt".
progress_patterns contains {
	"id": "progress.save-hf-deepspeed",
	"pattern": `Saving model checkpoint(?: to |: )\S*?(?:checkpoint-|global_step)(?P<saved_step>\d+)`,
}

# DeepSpeed's optimizer states and checkpoint engine, when written.
progress_patterns contains {
	"id": "progress.save-deepspeed-done",
	"pattern": `(?:zero checkpoint saved |\[Torch\] Saved )\S*?global_step(?P<saved_step>\d+)`,
}

# Megatron "  successfully saved checkpoint from iteration    5000 to
# /ckpt" (older versions: "at iteration").
progress_patterns contains {
	"id": "progress.save-megatron",
	"pattern": `successfully saved checkpoint (?:from|at) iteration\s+(?P<saved_step>\d+)`,
}

# Lightning's ModelCheckpoint: "Epoch 3, global step 4000: 'val_loss'
# reached 0.41000 (best 0.41000), saving model to '...ckpt' as top 1".
progress_patterns contains {
	"id": "progress.save-lightning",
	"pattern": `Epoch \d+, global step (?P<saved_step>\d+): '[^']*' reached \S+ \(best \S+\), saving model to`,
}
