#!/usr/bin/env bash
# Regenerates the nested tools module that pins the real control-plane binaries
# (kube-apiserver, kubectl, etcd, kwok) used by the integration tests and the demo.
#
# It is a separate module so that k8s.io/kubernetes and its 30-odd staging
# replace directives never enter the main module's dependency graph.
#
# Usage: K8S=1.37.1 KWOK=v0.8.0 hack/k8s-tools/gen.sh   (then commit go.mod, go.sum, tools.go)
set -euo pipefail
cd "$(dirname "$0")"
K8S=${K8S:-1.37.1}
KWOK=${KWOK:-v0.8.0}

printf 'module k8stools\n\ngo 1.26\n' > go.mod
rm -f go.sum
cat > tools.go <<'EOT'
//go:build tools

// Package tools pins the real control-plane binaries used by tests and the demo.
// Nothing imports it; build.sh builds the listed main packages.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
EOT

go mod download -json "k8s.io/kubernetes@v$K8S" >/dev/null
go mod edit -require="k8s.io/kubernetes@v$K8S" -require="sigs.k8s.io/kwok@$KWOK"

# k8s.io/kubernetes replaces its staging modules with ./staging/...; those
# replaces do not apply to a dependent module, so mirror each one at the
# matching published v0.<minor>.<patch> version.
MODFILE="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/v$K8S.mod"
for m in $(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$MODFILE"); do
	go mod edit -replace="$m=$m@v0.${K8S#1.}"
done

# etcd arrives at the version k8s.io/kubernetes itself requires (v3.7.0 for 1.37.1).
go mod tidy
