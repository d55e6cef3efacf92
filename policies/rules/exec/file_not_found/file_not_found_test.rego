package traindoc.rules.exec.file_not_found_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.file_not_found

test_fires_on_file_not_found if {
	pod := testing.pod(testing.failed, {"exec.file-not-found.python": testing.match("FileNotFoundError: [Errno 2] No such file or directory: '/data/sft/mix-v4.jsonl'")}, {})
	fs := file_not_found.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/data/sft/mix-v4.jsonl"
}

test_fires_on_hf_missing_config if {
	pod := testing.pod(testing.failed, {"exec.file-not-found.hf": testing.match("OSError: /models/llama-13b does not appear to have a file named config.json. Checkout 'https://huggingface.co//models/llama-13b/None' for available files.")}, {})
	fs := file_not_found.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/models/llama-13b/config.json"
}

# "No resume checkpoint found" handled by the script, training goes on.
test_quiet_when_handled if {
	pod := testing.pod(testing.running, {"exec.file-not-found.python": testing.match("FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/latest'")}, {"lastStepLine": 450})
	count(file_not_found.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(file_not_found.signatures, "exec.file-not-found.python"), "python: can't open file '/workspace/train.py': [Errno 2] No such file or directory")
	regex.match(testing.pattern(file_not_found.signatures, "exec.file-not-found.hf"), "OSError: Can't load tokenizer for '/models/tok'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same name.")
	not regex.match(testing.pattern(file_not_found.signatures, "exec.file-not-found.hf"), "loading configuration file config.json from cache at /root/.cache/huggingface/hub/models--meta-llama--Llama-2-13b-hf/config.json")
}

test_fires_on_hf_local_path_wordings if {
	cases := {
		"OSError: Error no file named pytorch_model.bin, tf_model.h5, model.ckpt.index or flax_model.msgpack found in directory /mnt/workspace/llama-13b.": "/mnt/workspace/llama-13b",
		"OSError: Incorrect path_or_model_id: '/mnt/share/bert-base-uncased'. Please provide either the path to a local folder or the repo_id of a model on the Hub.": "/mnt/share/bert-base-uncased",
		"huggingface_hub.utils._validators.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/ckpt/opt-1.3B'. Use `repo_type` argument if needed.": "/ckpt/opt-1.3B",
	}
	every line, path in cases {
		pod := testing.pod(testing.failed, {"exec.file-not-found.hf": testing.match(line)}, {})
		some f in file_not_found.findings with input as {"phase": "Failed", "pods": [pod]}
		f.params.path == path
	}
}

# A repo id that is malformed but is no path is not a missing file, and a
# loader that falls back after a missing file did not fail.
test_quiet_signatures_on_repo_id_typos if {
	p := testing.pattern(file_not_found.signatures, "exec.file-not-found.hf")
	not regex.match(p, "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': 'meta-llama/Llama-2-7b-hf/extra'. Use `repo_type` argument if needed.")
	not regex.match(p, "An error occurred while trying to fetch /models/sd/unet: Error no file named diffusion_pytorch_model.safetensors found in directory /models/sd/unet.")
}
