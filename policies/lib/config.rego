# METADATA
# title: Thresholds
# description: |
#   Rule thresholds. Users override any of them with a data file
#   (traindoc diagnose --data FILE) holding {"settings": {"thresholds":
#   {"stall_seconds": 600}}}.
package traindoc.lib.config

default_thresholds := {
	# A job pending longer than this with no more specific cause is flagged.
	"pending_seconds": 1800,
	# A running job whose last step or log line is older than this is stalled.
	"stall_seconds": 1800,
	# Mean GPU utilisation at or below this percentage counts as idle.
	"gpu_idle_percent": 5,
	# Recent throughput below this fraction of the baseline is a drop.
	"throughput_drop_ratio": 0.5,
	# A checkpoint older than this while training continues is stale.
	"checkpoint_stale_seconds": 7200,
	# A checkpoint more than this many steps behind the current step is stale.
	"checkpoint_stale_steps": 5000,
}

thresholds := object.union(default_thresholds, _user_thresholds)

default _user_thresholds := {}

_user_thresholds := data.settings.thresholds
