# METADATA
# title: vLLM has too little GPU memory for its KV cache
# description: |
#   A vLLM engine (a rollout worker of verl, OpenRLHF or NeMo-RL inside Ray,
#   or a serving replica) could not start: after loading the weights the GPU
#   memory left under gpu_memory_utilization cannot hold one sequence of
#   max_model_len tokens ("The model's max seq len (32768) is larger than the
#   maximum number of tokens that can be stored in KV cache (20432)", V1's "KV
#   cache is needed, which is larger than the available KV cache memory"), or
#   less GPU memory was free at startup than gpu_memory_utilization asks for
#   (another process, often the training actor colocated on the same GPU,
#   holds it). SGLang, the other rollout engine of verl and slime, refuses
#   to start for the same reason ("Not enough memory. Please try to increase
#   --mem-fraction-static").
# custom:
#   category: exec.cuda-oom
#   severity: error
#   owner: user
#   message:
#     en: "vLLM could not start: {{.problem}}."
#     zh: "vLLM 无法启动：{{.problem_zh}}。"
#   remediation:
#     en: |
#       - Lower `max_model_len` (verl: `actor_rollout_ref.rollout.max_model_len`, or the prompt plus response length) to what the KV cache can hold; the message states the estimate.
#       - Raise `gpu_memory_utilization` only when the GPU is not shared; when the rollout shares GPUs with the trainer (verl hybrid engine), offload the trainer's parameters and optimizer state during generation or lower `gpu_memory_utilization` of both.
#       - Use more tensor parallelism (`tensor_model_parallel_size`) or an FP8 KV cache (`kv_cache_dtype=fp8`) to fit longer sequences.
#       - For "Free memory on device ... less than desired": find what else holds that GPU (`nvidia-smi`), usually a previous engine or a colocated actor that did not release memory.
#       - SGLang "Not enough memory": the weights leave no room for the KV cache under `mem_fraction_static`; raise it (verl: `actor_rollout_ref.rollout.gpu_memory_utilization`), or use more tensor parallelism.
#     zh: |
#       - 将 `max_model_len`（verl 中为 `actor_rollout_ref.rollout.max_model_len`，或提示与回复长度之和）降到 KV cache 能容纳的长度；错误消息给出了估计值。
#       - 只有 GPU 不被共享时才提高 `gpu_memory_utilization`；当 rollout 与训练共用 GPU（`verl hybrid engine`）时，在生成期间卸载训练的参数和优化器状态，或同时降低两者的 `gpu_memory_utilization`。
#       - 使用更大的张量并行（`tensor_model_parallel_size`）或 FP8 KV cache（`kv_cache_dtype=fp8`）以容纳更长的序列。
#       - 对于 "Free memory on device ... less than desired"：用 `nvidia-smi` 找出还有什么占用了这块 GPU，通常是之前的引擎或同卡的 actor 没有释放显存。
#       - SGLang 报 "Not enough memory"：在 `mem_fraction_static` 限制内加载权重后已没有空间留给 KV cache；调大该值（verl 中为 `actor_rollout_ref.rollout.gpu_memory_utilization`），或增大张量并行。
#   zh:
#     title: vLLM 的 GPU 显存不足以容纳 KV cache
#     description: |
#       vLLM 引擎（verl、OpenRLHF 或 NeMo-RL 在 Ray 中的 rollout worker，或推理副本）无法启动：加载权重后，在 gpu_memory_utilization 限制内剩余的显存放不下一条 max_model_len 长度的序列（"The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (20432)"，V1 中为 "KV cache is needed, which is larger than the available KV cache memory"），或者启动时空闲显存少于 gpu_memory_utilization 要求的量（另一个进程占用了显存，常见的是同一 GPU 上的训练 actor）。verl 和 slime 的另一种 rollout 引擎 SGLang 也会因同样的原因拒绝启动（"Not enough memory. Please try to increase --mem-fraction-static"）。
package traindoc.rules.exec.vllm_gpu_memory

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.ray

# V0 (≤ 0.6) and V1 (≥ 0.8) wordings of a KV cache too small for
# max_model_len.
signatures contains {
	"id": "exec.vllm-oom.kv-cache",
	"pattern": `is larger than the maximum number of tokens that can be stored in KV cache|KV cache is needed, which is larger than the available KV cache memory`,
	"hint": "KV cache",
}

# vLLM ≥ 0.9: less free memory at startup than gpu_memory_utilization.
signatures contains {
	"id": "exec.vllm-oom.startup",
	"pattern": `Free memory on device(?: \S+)? \([\d.]+/[\d.]+ GiB\) on startup is less than desired GPU memory utilization`,
	"hint": "on startup is less than desired GPU memory utilization",
}

# vLLM ≥ 0.7 sleep mode (verl, OpenRLHF): the engine could not take its
# memory back when it woke up, because the trainer on the same GPU still
# holds it.
signatures contains {
	"id": "exec.vllm-oom.wake-up",
	"pattern": `(?i)cuda error: out of memory at \S*cumem_allocator\.cpp`,
	"hint": "cumem_allocator",
}

# SGLang: the KV cache pool left under mem_fraction_static after loading
# the weights holds no token (0.1 to 0.5 "Not enough memory", later builds
# "Loaded weights leave no GPU memory for the KV cache").
signatures contains {
	"id": "exec.vllm-oom.sglang",
	"pattern": `Not enough memory\. Please try to increase --mem-fraction-static|Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static`,
	"hint": "--mem-fraction-static",
}

_problem := {
	"exec.vllm-oom.kv-cache": ["the KV cache left after loading the model cannot hold one sequence of max_model_len tokens", "加载模型后剩余的 KV cache 放不下一条 max_model_len 长度的序列"],
	"exec.vllm-oom.startup": ["less GPU memory was free at startup than gpu_memory_utilization asks for", "启动时空闲显存少于 gpu_memory_utilization 要求的量"],
	"exec.vllm-oom.sglang": ["SGLang's KV cache pool left under mem_fraction_static after loading the weights holds no token", "在 mem_fraction_static 限制内加载权重后，SGLang 的 KV cache 池放不下任何 token"],
	"exec.vllm-oom.wake-up": ["the engine could not get its GPU memory back when it woke from sleep mode", "引擎从睡眠模式唤醒时无法重新获得显存"],
}

_patterns := {s.id: s.pattern | some s in signatures}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, object.keys(_problem))
	count(hs) > 0
	p := _problem[hs[0].id]
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"problem": p[0], "problem_zh": p[1]},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

findings contains f if {
	hs := ray.text_hits(_patterns)
	count(hs) > 0
	some subj in {ray.text_subject(h) | some h in hs}
	mine := [h | some h in hs; ray.text_subject(h) == subj]
	p := _problem[mine[0].id]
	f := {
		"subject": subj,
		"params": {"problem": p[0], "problem_zh": p[1]},
		"evidence": [ray.text_evidence(h) | some i, h in mine; i < 3],
		"time": "",
	}
}
