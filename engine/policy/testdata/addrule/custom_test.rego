package traindoc.rules.site.s3_slowdown_test

import data.traindoc.rules.site.s3_slowdown

test_fires if {
	count(s3_slowdown.findings) == 1 with input as {"pods": [{"name": "p", "containers": [{"logs": [{"matches": {"site.s3-slowdown": {"count": 3}}}]}]}]}
}

test_quiet if {
	count(s3_slowdown.findings) == 0 with input as {"pods": [{"name": "p", "containers": [{"logs": [{"matches": {}}]}]}]}
}

test_deliberately_failing if {
	false
}
