# METADATA
# title: Settings
# description: |
#   What a user may set with a data file (traindoc diagnose --data FILE):
#   rule thresholds and per-rule settings. The engine checks every data
#   file against threshold_schema and the rule catalogue before any job is
#   diagnosed: an unknown key, a value of the wrong type or out of range is
#   an error naming the file and line, so that a typo can never switch a
#   rule off silently.
#
#     settings:
#       thresholds:
#         stall_seconds: 600
#       rules:
#         spec-no-shm: {enabled: false}
#         exec-nan-loss: {severity: critical}
package traindoc.lib.config

# threshold_schema describes each threshold: its default, its bounds and
# what it means. User policies may add thresholds for their own rules by
# adding entries in this package.
threshold_schema["pending_seconds"] := {
	"default": 1800, "min": 1,
	"description": "a job pending longer than this with no more specific cause is flagged",
}

threshold_schema["stall_seconds"] := {
	"default": 1800, "min": 1,
	"description": "a running job whose last step or log line is older than this is stalled",
}

threshold_schema["gpu_idle_percent"] := {
	"default": 5, "min": 0, "max": 100,
	"description": "mean GPU utilisation at or below this percentage counts as idle",
}

threshold_schema["throughput_drop_ratio"] := {
	"default": 0.5, "min": 0, "max": 1,
	"description": "recent throughput below this fraction of the baseline is a drop",
}

threshold_schema["checkpoint_stale_seconds"] := {
	"default": 7200, "min": 1,
	"description": "a checkpoint older than this while training continues is stale",
}

threshold_schema["checkpoint_stale_steps"] := {
	"default": 5000, "min": 1,
	"description": "a checkpoint more than this many steps behind the current step is stale",
}

default_thresholds := {k: s.default | some k, s in threshold_schema}

thresholds := object.union(default_thresholds, _user_thresholds)

default _user_thresholds := {}

_user_thresholds := data.settings.thresholds
