# METADATA
# title: Throughput dropped
# description: |
#   Training throughput (samples, tokens or iterations per second read from
#   the logs) recently fell well below its earlier level: a slow node or GPU
#   (thermal or power throttling, a degraded link), a network fallback,
#   storage slowdowns, or a change in the data.
# custom:
#   severity: warning
#   owner: platform
#   message:
#     en: "Throughput fell to {{.recent}} {{.unit}} from {{.baseline}} {{.unit}} ({{.percent}}% of its earlier level)."
#     zh: "吞吐量从 {{.baseline}} {{.unit}} 降到 {{.recent}} {{.unit}}（为之前的 {{.percent}}%）。"
#   remediation:
#     en: |
#       - Compare per-rank step times if the logs have them; one slow rank slows every synchronous step.
#       - Check GPU clocks and throttle reasons (`nvidia-smi -q -d PERFORMANCE`), temperatures and power on each node.
#       - Check the NCCL transport did not fall back to sockets and that the network links are healthy (nccl-tests between nodes).
#       - Check storage and data-loader throughput (`num_workers`, remote reads), and whether sequence lengths or batch composition changed.
#     zh: |
#       - 如果日志中有每个 rank 的 step 时间，逐一比较；一个慢 rank 会拖慢每一个同步 step。
#       - 检查各节点的 GPU 时钟与降频原因（`nvidia-smi -q -d PERFORMANCE`）、温度和功耗。
#       - 确认 NCCL 传输没有回退到 socket，且网络链路正常（节点间运行 nccl-tests）。
#       - 检查存储和数据加载吞吐（`num_workers`、远程读取），以及序列长度或 batch 组成是否发生变化。
#   zh:
#     title: 吞吐量下降
#     description: |
#       从日志读到的训练吞吐量（每秒样本、token 或迭代数）近期明显低于之前的水平：可能是慢节点或慢 GPU（过热或功耗降频、链路降级）、网络回退、存储变慢，或数据发生了变化。
package traindoc.rules.progress.throughput_drop

import data.traindoc.lib.config
import data.traindoc.lib.k8s

# Enough points for a baseline and a recent window to mean something.
_min_samples := 8

findings contains f if {
	input.phase == "Running"
	tp := input.progress.throughput
	tp.samples >= _min_samples
	tp.baseline > 0
	tp.recent < tp.baseline * config.thresholds.throughput_drop_ratio
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {
			"unit": tp.unit,
			"baseline": _fmt(tp.baseline),
			"recent": _fmt(tp.recent),
			"percent": round((tp.recent / tp.baseline) * 100),
		},
		"evidence": [{
			"kind": "progress",
			"source": object.get(input.progress, "source", "logs"),
			"object": k8s.job_ref,
			"text": sprintf("%s: baseline %v, recent %v, last %v over %d samples", [tp.unit, tp.baseline, tp.recent, object.get(tp, "last", "?"), tp.samples]),
			"time": object.get(tp, "recentSince", ""),
		}],
		"time": object.get(tp, "recentSince", ""),
	}
}

# Rates print without exponent: "1029376" tokens/s, "2.4" it/s.
_fmt(x) := sprintf("%.0f", [x]) if x >= 100

else := sprintf("%.1f", [x])
