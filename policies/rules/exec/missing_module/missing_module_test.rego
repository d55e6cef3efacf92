package traindoc.rules.exec.missing_module_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.missing_module

test_fires_on_module_not_found if {
	pod := testing.pod(testing.failed, {"exec.missing-module.import": testing.match("ModuleNotFoundError: No module named 'flash_attn.flash_attn_interface'")}, {})
	fs := missing_module.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.module == "flash_attn"
	f.time == "2026-03-01T09:59:00Z"
}

test_fires_on_cannot_import if {
	pod := testing.pod(testing.failed, {"exec.missing-module.import": testing.match("ImportError: cannot import name 'LlamaFlashAttention2' from 'transformers.models.llama.modeling_llama' (/usr/lib/python3/site-packages/transformers/models/llama/modeling_llama.py)")}, {})
	fs := missing_module.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.module == "LlamaFlashAttention2 (from transformers)"
}

# An optional dependency probed at start in a job that keeps running.
test_quiet_on_optional_import if {
	pod := testing.pod(testing.running, {"exec.missing-module.import": testing.match("No module named 'apex', using torch AMP instead")}, {"lastStepLine": 400})
	count(missing_module.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

# A missing CUDA library is exec.cuda-env.
test_quiet_on_cuda_library if {
	pod := testing.pod(testing.failed, {"exec.missing-module.import": testing.match("ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory")}, {})
	count(missing_module.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.import"), "ImportError: This modeling file requires the following packages that were not found in your environment: flash_attn. Run `pip install flash_attn`")
	regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.import"), "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")
	regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.command"), "bash: line 1: torchrun: command not found")
	not regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.import"), "Requirement already satisfied: transformers==4.40.1 in /usr/local/lib/python3.10/dist-packages")
}

# Exit code 127 is the shell's "command not found", even with an empty log:
# one finding, whether the instance is the current or the previous one.
test_fires_on_exit_127 if {
	st := {"state": "terminated", "reason": "Error", "exitCode": 127, "finishedAt": "2026-03-01T10:00:00Z"}
	pod := object.union(testing.pod(st, {}, {}), {"containers": [{"name": "main", "restartCount": 3, "state": st, "lastState": st, "logs": []}]})
	fs := missing_module.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	contains(f.params.module, "exit code 127")
}

# An extension built against another PyTorch is a broken Python
# environment (missing-module); an undefined CUDA or NCCL symbol is a CUDA
# library mismatch and belongs to exec.cuda-env.
test_quiet_undefined_symbol_split if {
	ext := testing.pod(testing.failed, {"exec.missing-module.import": testing.match("ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")}, {})
	some f in missing_module.findings with input as {"phase": "Failed", "pods": [ext]}
	f.params.module == "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so (undefined symbol)"
	nccl := testing.pod(testing.failed, {"exec.missing-module.import": testing.match("ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister")}, {})
	count(missing_module.findings) == 0 with input as {"phase": "Failed", "pods": [nccl]}
}

test_fires_on_missing_package_metadata if {
	pod := testing.pod(testing.failed, {"exec.missing-module.package": testing.match("importlib.metadata.PackageNotFoundError: No package metadata was found for bitsandbytes")}, {})
	fs := missing_module.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.module == "bitsandbytes"
}

test_fires_on_unknown_model_type if {
	pod := testing.pod(testing.failed, {"exec.missing-module.package": testing.match("ValueError: The checkpoint you are trying to load has model type `qwen3_moe` but Transformers does not recognize this architecture.")}, {})
	fs := missing_module.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.module == "transformers (model type qwen3_moe)"
}

# torchvision warns at import that its optional image extension does not
# load; the job fails of something else, or right after.
test_quiet_on_a_warning if {
	line := "/usr/local/lib/python3.10/dist-packages/torchvision/io/image.py:13: UserWarning: Failed to load image Python extension: '/usr/local/lib/python3.10/dist-packages/torchvision/image.so: undefined symbol: _ZN3c104impl8GPUTrace13gpuTraceStateE'"
	base := testing.pod(testing.failed, {"exec.missing-module.import": testing.match(line)}, {})
	c := base.containers[0]
	pod := object.union(base, {"containers": [object.union(c, {"logs": [object.union(c.logs[0], {"tail": [line, "  warn("]})]})]})
	count(missing_module.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_signatures_of_new_wordings if {
	regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.import"), "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed.")
	regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.import"), "ImportError: numpy.core.multiarray failed to import")
	regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.package"), "pkg_resources.DistributionNotFound: The 'zenodo' distribution was not found and is required by the application")
	not regex.match(testing.pattern(missing_module.signatures, "exec.missing-module.import"), "[NeMo W 2022-01-19 10:00:00 megatron_init:52] Apex was not found. Using model parallel or megatron models will error out.")
}
