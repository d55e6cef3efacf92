# METADATA
# title: Builders for the rules' tests
# description: |
#   The pieces of input that many rule tests need alike: a pod with one
#   container and one scanned log, container states, a signature match
#   and a rule's signature pattern. The file is a test file, so the
#   builders exist only when the tests run, never in the policies
#   traindoc evaluates. It holds no tests and emits no findings.
package traindoc.lib.testing

# failed is a container state: exited 1 (reason Error) at 10:00.
failed := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}

# running is a running container's state.
running := {"state": "running"}

# match(text) is what the log scanner reports for a signature that matched
# one line, text, at line 100.
match(text) := {
	"count": 1, "firstLine": 100, "lastLine": 100, "firstTime": "2026-03-01T09:59:00Z",
	"samples": [{"line": 100, "time": "2026-03-01T09:59:00Z", "text": text}],
}

# pod(state, matches, progress) is pod ml/w-2 on node-a with one container,
# main, in state, whose current log (500 lines) has these signature
# matches and progress.
pod(state, matches, progress) := {
	"name": "w-2", "namespace": "ml", "phase": "Running", "nodeName": "node-a", "conditions": [],
	"containers": [{
		"name": "main", "restartCount": 0, "state": state, "lastState": {},
		"logs": [{
			"file": "logs/w-2/main.log", "previous": false, "lines": 500, "matches": matches,
			"tail": ["x"], "progress": progress, "exception": "",
		}],
	}],
}

# pattern(signatures, id) is the RE2 pattern of signature id among
# signatures (a rule's, or a rule's and a library's).
pattern(signatures, id) := s.pattern if {
	some s in signatures
	s.id == id
}
