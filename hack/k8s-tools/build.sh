#!/usr/bin/env bash
# Builds kube-apiserver, kubectl, etcd and kwok from the pinned tools module into
# <repo>/.cache/k8s-bin/<k8s version>/ and prints that directory on stdout.
#
# Idempotent: when all binaries (and the kwok support files) are already present
# it prints the directory and exits at once. A cold build takes ~5 minutes on two
# cores; with a warm GOCACHE it takes ~10 s. Build output goes to stderr so that
# callers can use  BIN=$(hack/k8s-tools/build.sh).
#
# Environment: K8S_BIN overrides the output directory.
set -euo pipefail
cd "$(dirname "$0")"
K8S=$(sed -n 's#^[[:space:]]*k8s.io/kubernetes \(v[0-9.]*\)$#\1#p' go.mod)
[ -n "$K8S" ] || { echo "build.sh: cannot find the k8s.io/kubernetes version in go.mod" >&2; exit 1; }
K8S_BIN=${K8S_BIN:-$(cd ../.. && pwd)/.cache/k8s-bin/$K8S}

have_all() {
	for f in kube-apiserver etcd kubectl kwok; do [ -x "$K8S_BIN/$f" ] || return 1; done
	for f in kwok-stages.yaml kwok-logs-crds.yaml; do [ -s "$K8S_BIN/$f" ] || return 1; done
}
if have_all; then echo "$K8S_BIN"; exit 0; fi

mkdir -p "$K8S_BIN"
# Build into a temporary directory and move into place at the end, so an
# interrupted build never leaves a directory that have_all would accept.
TMP=$(mktemp -d "$K8S_BIN/.build.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

MINOR=$(echo "$K8S" | cut -d. -f2)
V=k8s.io/component-base/version
# Without these the server reports v0.0.0-master+$Format:%H$ and kubectl warns about skew.
LD="-s -w -X $V.gitVersion=$K8S -X $V.gitMajor=1 -X $V.gitMinor=$MINOR -X $V.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$K8S"
go build -trimpath -ldflags "$LD" -o "$TMP/" \
	k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl \
	sigs.k8s.io/kwok/cmd/kwok go.etcd.io/etcd/server/v3 >&2
mv "$TMP/server" "$TMP/etcd" # the etcd main package is go.etcd.io/etcd/server/v3

# kwok needs stage definitions to move nodes and pods through their lifecycle,
# and the Logs CRDs to serve container logs; both ship inside the kwok module.
KW=$(go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
	pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
	cat "$KW/kustomize/stage/$f"
	echo "---"
done > "$TMP/kwok-stages.yaml"
cat "$KW/kustomize/crd/bases/kwok.x-k8s.io_logs.yaml" \
	"$KW/kustomize/crd/bases/kwok.x-k8s.io_clusterlogs.yaml" > "$TMP/kwok-logs-crds.yaml"

for f in kube-apiserver kubectl kwok etcd kwok-stages.yaml kwok-logs-crds.yaml; do
	mv -f "$TMP/$f" "$K8S_BIN/$f"
done
echo "$K8S_BIN"
