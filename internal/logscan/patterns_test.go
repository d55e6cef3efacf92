package logscan

// The patterns below are what a rule author would declare in Rego; they
// live in the tests to prove the engine handles real log formats, and
// are proposed for policies/ as they stand.

func sig(id, pattern, hint string) map[string]any {
	m := map[string]any{"id": id, "pattern": pattern}
	if hint != "" {
		m["hint"] = hint
	}
	return m
}

// testSignatures are a handful of real failure signatures.
func testSignatures() []map[string]any {
	return []map[string]any{
		sig("cuda-oom", `(?:torch\.(?:cuda\.)?OutOfMemoryError: )?CUDA out of memory\. Tried to allocate (?P<size>[\d.]+ [KMG]iB)`, "CUDA out of memory"),
		sig("child-failed", `torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError`, ""),
		sig("nccl-watchdog", `Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+), OpType=(?P<op>\w+)`, "Watchdog caught collective operation timeout"),
		sig("nccl-error", `(?i)NCCL error in: (?P<where>\S+)`, ""),
		sig("sigterm", `Sending process \d+ closing signal SIGTERM`, "closing signal SIGTERM"),
		sig("file-not-found", `FileNotFoundError: \[Errno 2\] No such file or directory: '(?P<path>[^']+)'`, ""),
		sig("ray-worker-failed", `Worker (?P<rank>\d+) has failed`, ""),
		{"id": "killed", "pattern": `(?i)\bkilled\b`, "context": 1.0},
	}
}

// testProgress are the proposed progress patterns.
func testProgress() []map[string]any {
	return []map[string]any{
		{"id": "tqdm", "hint": "%|", "pattern": `^\s*(?:Epoch \d+:\s*)?\d+%\|[^|]*\|\s*(?P<step>\d+)/(?P<total>\d+)\s*\[[^\],]*(?:,\s*(?P<value>[\d.]+)(?P<unit>s/it|it/s))?(?:[^\]]*?\b(?:train_)?loss=(?P<loss>[-+\d.eE]+|nan|inf))?`},
		{"id": "python-dict-loss", "hint": "'loss': ", "pattern": `[{,] ?'loss': (?P<loss>[-+\d.eE]+|nan|inf)`},
		{"id": "hf-trainer-summary", "hint": "samples_per_second': ", "pattern": `'(?:train_)?samples_per_second': (?P<value>[\d.]+)`, "unit": "samples/s"},
		{"id": "deepspeed-step", "hint": ", skipped=", "pattern": `\[Rank \d+\] step=(?P<step>\d+), skipped=\d+`},
		{"id": "deepspeed-throughput", "hint": "CurrSamplesPerSec=", "pattern": `global_step=(?P<step>\d+), RunningAvgSamplesPerSec=[\d.]+, CurrSamplesPerSec=(?P<value>[\d.]+)`, "unit": "samples/s"},
		{"id": "deepspeed-samples-per-sec", "hint": "samples/sec=", "pattern": `samples/sec=(?P<value>[\d.]+)`, "unit": "samples/s"},
		{"id": "megatron-iteration", "hint": " iteration ", "pattern": `iteration\s+(?P<step>\d+)/\s*(?P<total>\d+) \|`},
		{"id": "megatron-time", "hint": "elapsed time per iteration (ms): ", "pattern": `elapsed time per iteration \(ms\): (?P<value>[\d.]+)`, "unit": "ms/it"},
		{"id": "megatron-loss", "hint": "| lm loss: ", "pattern": `\| lm loss: (?P<loss>[-+\d.eE]+|nan|inf)`},
		{"id": "ray-train-iteration", "hint": "Training finished iteration ", "pattern": `Training finished iteration (?P<step>\d+) at`},
		{"id": "ray-train-result-iteration", "hint": "training_iteration", "pattern": `(?:'training_iteration': |│ training_iteration\s+)(?P<step>\d+)`},
		{"id": "ray-train-result-loss", "hint": "│ loss ", "pattern": `│ loss\s+(?P<loss>[-+\d.eE]+|nan|inf)\s+│`},
		{"id": "plain-step", "hint": "step", "pattern": `(?i)\bstep[\s:=]+(?P<step>\d+)(?:\s*/\s*(?P<total>\d+))?`},
		{"id": "plain-loss", "hint": "loss", "pattern": `(?i)\bloss[\s:=]+(?P<loss>[-+]?\d[\d.]*(?:e[-+]?\d+)?|nan|inf)\b`},
		{"id": "plain-rate", "hint": "/s", "pattern": `(?i)\b(?P<unit>tokens/s(?:ec)?|tok/s|samples/s(?:ec)?)[\s:=]+(?P<value>[\d.]+)`},
	}
}
