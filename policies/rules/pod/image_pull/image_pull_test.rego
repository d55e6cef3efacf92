package traindoc.rules.pod.image_pull_test

import data.traindoc.rules.pod.image_pull

_image := "registry.example.com/ml/trainer:v2.4.1"

# Not lib/testing's pod: a Pending pod whose container waits with the pull
# reason and message each case sets.
_pod(name, reason, msg) := {
	"name": name, "namespace": "ml", "phase": "Pending", "conditions": [],
	"containers": [{
		"name": "pytorch", "image": _image, "ready": false, "restartCount": 0,
		"state": {"state": "waiting", "reason": reason, "message": msg},
		"lastState": {},
	}],
}

_failed_event(pod, msg) := {
	"type": "Warning", "reason": "Failed", "count": 4, "message": msg,
	"object": {"kind": "Pod", "name": pod, "namespace": "ml"},
	"firstTime": "2026-03-01T10:00:05Z", "lastTime": "2026-03-01T10:03:00Z",
}

test_fires_tag_not_found_is_user if {
	msg := sprintf(`Failed to pull image "%s": rpc error: code = NotFound desc = failed to pull and unpack image "%s": failed to resolve reference "%s": %s: not found`, [_image, _image, _image, _image])
	pods := [_pod("gpt-worker-0", "ImagePullBackOff", sprintf(`Back-off pulling image "%s"`, [_image]))]
	fs := image_pull.findings with input as {"pods": pods, "events": [_failed_event("gpt-worker-0", msg)]}
	count(fs) == 1
	some f in fs
	f.subject == {"kind": "Pod", "name": "gpt-worker-0", "container": "pytorch"}
	f.params.image == _image
	f.params.error == {"en": "not found", "zh": "镜像不存在"}
	f.owner == "user"
	endswith(f.params.detail, ": not found")
	count(f.evidence) == 2
}

test_fires_unauthorized_is_platform if {
	msg := sprintf(`Failed to pull image "%s": rpc error: code = Unknown desc = failed to pull and unpack image "%s": failed to resolve reference "%s": pulling from host registry.example.com failed with status code [manifests v2.4.1]: 401 Unauthorized`, [_image, _image, _image])
	pods := [_pod("gpt-worker-0", "ErrImagePull", msg)]
	fs := image_pull.findings with input as {"pods": pods, "events": []}
	some f in fs
	f.params.error.en == "unauthorized"
	f.owner == "platform"
}

test_fires_network_timeout_event_only if {
	msg := `Failed to pull image "nvcr.io/nvidia/pytorch:24.03-py3": rpc error: code = Unknown desc = failed to pull and unpack image "nvcr.io/nvidia/pytorch:24.03-py3": failed to copy: httpReadSeeker: failed open: failed to do request: Get "https://nvcr.io/v2/": dial tcp 10.0.0.1:443: i/o timeout`
	fs := image_pull.findings with input as {"pods": [], "events": [_failed_event("w-1", msg)]}
	some f in fs
	f.params.image == "nvcr.io/nvidia/pytorch:24.03-py3"
	f.params.error.en == "network"
}

test_fires_invalid_name if {
	pods := [_pod("w-0", "InvalidImageName", `Failed to apply default image tag "Registry/ML:latest ": couldn't parse image reference "Registry/ML:latest ": invalid reference format`)]
	fs := image_pull.findings with input as {"pods": pods, "events": []}
	some f in fs
	f.params.error.en == "invalid name"
	f.owner == "user"
}

test_quiet_pulled_after_retry_silent if {
	pod := object.union(_pod("w-0", "", ""), {"phase": "Running", "containers": [{"name": "pytorch", "image": _image, "state": {"state": "running", "startedAt": "2026-03-01T10:05:00Z"}, "lastState": {}}]})
	msg := sprintf(`Failed to pull image "%s": rpc error: code = Unknown desc = context deadline exceeded`, [_image])
	fs := image_pull.findings with input as {"pods": [pod], "events": [_failed_event("w-0", msg)]}
	count(fs) == 0
}

# The kubelet's ErrImageNeverPull event does not name the reason in its
# message (kubernetes 1.28, stellar/anchor-platform#1467).
test_fires_never_pull_event_only if {
	e := object.union(_failed_event("w-0", `Container image "registry.example.com/ml/trainer:v2.4.1" is not present with pull policy of Never`), {"reason": "ErrImageNeverPull"})
	fs := image_pull.findings with input as {"pods": [], "events": [e]}
	count(fs) == 1
	some f in fs
	f.params.error.en == "never pull"
	f.params.image == _image
	f.owner == "user"
}

# A rate limit whose digest holds "401" is a registry limit, not a refusal
# of credentials (namespacelabs/foundation#846).
test_fires_rate_limit_not_unauthorized if {
	msg := `Failed to pull image "docker.io/library/python@sha256:4010aa": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/python@sha256:4010aa": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/python/manifests/sha256:4010aa: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit.`
	pods := [_pod("w-0", "ErrImagePull", msg)]
	fs := image_pull.findings with input as {"pods": pods, "events": []}
	some f in fs
	f.params.error.en == "network"
}

# The waiting message alone (events expired): x509 is the network class.
test_fires_x509_from_waiting_message if {
	msg := sprintf(`Failed to pull image "%s": rpc error: code = Unknown desc = failed to pull and unpack image "%s": failed to resolve reference "%s": failed to do request: Head "https://registry.example.com/v2/ml/trainer/manifests/v2.4.1": tls: failed to verify certificate: x509: certificate signed by unknown authority`, [_image, _image, _image])
	fs := image_pull.findings with input as {"pods": [_pod("w-0", "ErrImagePull", msg)], "events": []}
	some f in fs
	f.params.error.en == "network"
	endswith(f.params.detail, "x509: certificate signed by unknown authority")
}

# A back-off notice with no failure left to read does not say why.
test_quiet_backoff_event_alone if {
	e := object.union(_failed_event("w-0", sprintf(`Back-off pulling image "%s"`, [_image])), {"type": "Normal", "reason": "BackOff"})
	count(image_pull.findings) == 0 with input as {"pods": [], "events": [e]}
}
