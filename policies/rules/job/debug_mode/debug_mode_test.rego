package traindoc.rules.job.debug_mode_test

import data.traindoc.rules.job.debug_mode

test_fires_debug_enabled if {
	j := {"kind": "PyTorchTrainingJob", "name": "yolo", "namespace": "demo", "phase": "Running", "createdAt": "2026-03-01T10:00:00Z", "spec": {"runMode": {"debug": true, "pause": false}}}
	fs := debug_mode.findings with input as j
	count(fs) == 1
	some f in fs
	f.subject == {"kind": "PyTorchTrainingJob", "name": "yolo"}
	f.evidence[0].field == "spec.runMode.debug.enable"
}

test_quiet_normal_mode_silent if {
	j := {"kind": "PyTorchTrainingJob", "name": "yolo", "phase": "Running", "spec": {"runMode": {"debug": false, "pause": false}}}
	count(debug_mode.findings) == 0 with input as j
}
