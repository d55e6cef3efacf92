package traindoc.lib.python_test

import data.traindoc.lib.python

_lf(exception, traceback, tail, matches, progress) := {
	"file": "logs/p/c.log", "previous": false, "exception": exception, "traceback": traceback,
	"tail": tail, "matches": matches, "progress": progress,
}

_failed_pod := {"name": "p", "phase": "Failed", "containers": []}

_failed_c := {"name": "c", "restartCount": 0, "state": {"state": "terminated", "exitCode": 1}, "lastState": {}}

_running_pod := {"name": "p", "phase": "Running", "containers": []}

_running_c := {"name": "c", "restartCount": 0, "state": {"state": "running"}, "lastState": {}}

_hit(lf, text, line) := {"log": lf, "id": "x", "m": {"count": 1, "firstLine": line, "lastLine": line, "samples": [{"line": line, "text": text}]}}

# A launcher's wrapper is not the log's exception: the rank's line is.
test_exception_skips_wrapper if {
	lf := _lf(
		"torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", [], [], {"launcher.exception": {"samples": [
			{"line": 10, "text": "[rank3]: KeyError: 'input_ids'"},
			{"line": 20, "text": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "},
		]}},
		{},
	)
	python.exception(lf) == "[rank3]: KeyError: 'input_ids'"
}

# The failure itself: the exception the log ends with.
test_decisive_when_final if {
	lf := _lf("ModuleNotFoundError: No module named 'flash_attn'", ["Traceback (most recent call last):", "ModuleNotFoundError: No module named 'flash_attn'"], [], {}, {})
	h := _hit(lf, "ModuleNotFoundError: No module named 'flash_attn'", 40)
	python.decisive(_failed_pod, _failed_c, h, h.m.samples[0]) with input as {"phase": "Failed"}
}

# An optional import that fell back, in a log that ended with another
# exception, did not stop the program.
test_not_decisive_when_another_exception_ended_it if {
	lf := _lf("KeyError: 'input_ids'", ["Traceback (most recent call last):", "KeyError: 'input_ids'"], ["WARNING: No module named 'apex', using torch AMP", "KeyError: 'input_ids'"], {}, {"lastStepLine": 3})
	h := _hit(lf, "WARNING: No module named 'apex', using torch AMP", 2)
	not python.decisive(_failed_pod, _failed_c, h, h.m.samples[0]) with input as {"phase": "Failed"}
}

# "Failed to import X because of the following error (look up to see its
# traceback):" continues on the next line: that line is the cause.
test_decisive_after_colon_exception if {
	line := "/opt/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops5zeros4call"
	lf := _lf("", [], [line], {"launcher.exception": {"samples": [{"line": 9, "text": "RuntimeError: Failed to import transformers.models.bloom.modeling_bloom because of the following error (look up to see its traceback):"}]}}, {})
	h := _hit(lf, line, 10)
	python.decisive(_failed_pod, _failed_c, h, h.m.samples[0]) with input as {"phase": "Failed"}
}

# A rank that logs no steps: the job's progress long after the line shows
# it was handled.
test_not_decisive_when_job_stepped_on if {
	lf := _lf("", [], [], {}, {})
	h := {"log": lf, "id": "x", "m": {"count": 1, "firstLine": 5, "lastLine": 5, "samples": [{"line": 5, "time": "2026-05-12T08:00:00Z", "text": "FileNotFoundError(2, 'No such file or directory')"}]}}
	not python.decisive(_running_pod, _running_c, h, h.m.samples[0]) with input as {"phase": "Running", "progress": {"lastStepTime": "2026-05-12T10:59:00Z"}}
	python.decisive(_running_pod, _running_c, h, h.m.samples[0]) with input as {"phase": "Running", "progress": {"lastStepTime": "2026-05-12T08:01:00Z"}}
}

test_exception_line if {
	python.exception_line("OSError: [Errno 28] No space left on device")
	python.exception_line("[rank3]: torch.OutOfMemoryError: CUDA out of memory.")
	python.exception_line("Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.")
	not python.exception_line("WARNING: No module named 'apex', using torch AMP")
	not python.exception_line("loading: config.json")
}
