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
