package traindoc.rules.exec.nonzero_exit_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.nonzero_exit

test_fires_on_exit_2 if {
	pod := testing.pod({"state": "terminated", "reason": "Error", "exitCode": 2, "finishedAt": "2026-03-01T10:00:00Z"}, {}, {})
	fs := nonzero_exit.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	count(fs) == 1
	some f in fs
	f.params == {"code": 2, "meaning": {"en": "usage error: bad command-line arguments", "zh": "用法错误：命令行参数有误"}}
}

# An exit code above 128 without a name of its own is the signal it
# stands for, in both languages.
test_fires_on_signal_exit if {
	pod := testing.pod({"state": "terminated", "reason": "Error", "exitCode": 130, "finishedAt": "2026-03-01T10:00:00Z"}, {}, {})
	fs := nonzero_exit.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	some f in fs
	f.params.meaning == {"en": "killed by signal 2", "zh": "被信号 2 终止"}
}

# Every meaning the message can show exists in both languages.
test_meanings_have_both_languages if {
	every code in [1, 2, 3, 126, 127, 134, 137, 143, 150, 200] {
		nonzero_exit._meaning(code).en != ""
		nonzero_exit._meaning(code).zh != ""
	}
	every code in [1, 2, 3, 126, 127, 150] {
		nonzero_exit._meaning(code).zh != nonzero_exit._meaning(code).en
	}
}

test_quiet_on_success if {
	pod := testing.pod({"state": "terminated", "reason": "Completed", "exitCode": 0}, {}, {})
	count(nonzero_exit.findings) == 0 with input as {"phase": "Succeeded", "pods": [pod], "events": []}
}

# The rule does not know about other rules: the engine drops this fallback
# for a container in which any rule found a more specific fault
# (taxonomy.fallback_subject), so a CUDA OOM container still yields the
# exit here.
test_fires_even_when_another_rule_explains if {
	pod := testing.pod(testing.failed, {"exec.cuda-oom.torch": testing.match("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")}, {})
	count(nonzero_exit.findings) == 1 with input as {"phase": "Failed", "pods": [pod], "events": []}
}

# A crash-looping container has a current and a previous log: the exit of
# the previous instance shows the previous log's tail, once.
test_fires_once_with_both_logs if {
	prev := {"file": "logs/ml/w-2/main.previous.log", "previous": true, "lines": 9, "matches": {}, "tail": ["old"]}
	cur := {"file": "logs/ml/w-2/main.log", "previous": false, "lines": 9, "matches": {}, "tail": ["new"]}
	c := {"name": "main", "restartCount": 1, "state": {"state": "waiting", "reason": "CrashLoopBackOff"}, "lastState": testing.failed, "logs": [prev, cur]}
	pod := {"name": "w-2", "namespace": "ml", "phase": "Running", "conditions": [], "containers": [c]}
	fs := nonzero_exit.findings with input as {"phase": "Running", "pods": [pod], "events": []}
	count(fs) == 1
	some f in fs
	f.evidence[1].text == "old"
}
