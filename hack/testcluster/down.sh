#!/usr/bin/env bash
# Stops the processes started by up.sh (kwok first, etcd last) and waits for
# each to exit. The run directory is kept for its logs; delete it yourself.
#
# Usage: hack/testcluster/down.sh RUN_DIR
set -uo pipefail
RUN=${1:?usage: down.sh RUN_DIR}
for name in kwok kube-apiserver etcd; do
	f="$RUN/$name.pid"
	[ -f "$f" ] || continue
	pid=$(cat "$f")
	if kill "$pid" 2>/dev/null; then
		# Give it 10 s to shut down cleanly, then force it.
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
done
