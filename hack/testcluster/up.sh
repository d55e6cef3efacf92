#!/usr/bin/env bash
# Starts a throw-away control plane for the demo: etcd + kube-apiserver on
# loopback, plus kwok simulating kubelets (node/pod lifecycle and container logs).
# There is no scheduler or controller-manager: pods must set spec.nodeName, and
# nodes must be annotated kwok.x-k8s.io/node=fake to be managed by kwok.
#
# Usage: KUBECONFIG=$(hack/testcluster/up.sh "$(hack/k8s-tools/build.sh)" /tmp/tc)
#        ...
#        hack/testcluster/down.sh /tmp/tc
#
# The ports are fixed (override with ETCD_PORT, ETCD_PEER_PORT, APISERVER_PORT,
# KWOK_PORT), so only one instance runs per machine; the Go integration tests
# start their own control planes on random ports instead.
set -euo pipefail
BIN=${1:?usage: up.sh BIN_DIR RUN_DIR}
RUN=${2:?usage: up.sh BIN_DIR RUN_DIR}
ETCD_PORT=${ETCD_PORT:-2379}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-2380}
APISERVER_PORT=${APISERVER_PORT:-6443}
KWOK_PORT=${KWOK_PORT:-10250}

mkdir -p "$RUN/certs"
RUN=$(cd "$RUN" && pwd)

openssl genrsa -out "$RUN/sa.key" 2048 2>/dev/null
openssl rsa -in "$RUN/sa.key" -pubout -out "$RUN/sa.pub" 2>/dev/null
# kwok serves the kubelet API (logs, exec) over TLS; a self-signed cert is fine
# because the apiserver does not verify kubelet certificates by default.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$RUN/kwok.key" -out "$RUN/kwok.crt" -days 30 \
	-subj /CN=kwok -addext subjectAltName=IP:127.0.0.1 2>/dev/null

TOKEN=$(openssl rand -hex 16)
# token,user,uid,groups. Add lines here to try RBAC-limited users (see deploy/rbac.yaml).
echo "$TOKEN,admin,admin,system:masters" > "$RUN/tokens.csv"

"$BIN/etcd" --name t --data-dir "$RUN/etcd" --log-level warn \
	--listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
	--listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
	--initial-cluster "t=http://127.0.0.1:$ETCD_PEER_PORT" > "$RUN/etcd.log" 2>&1 &
echo $! > "$RUN/etcd.pid"

# --endpoint-reconciler-type=none: the loopback address is not a valid endpoint IP.
# --disable-admission-plugins=ServiceAccount: nothing creates the default SA.
# --kubelet-preferred-address-types=InternalIP: node hostnames do not resolve;
#   kwok reports 127.0.0.1 as the node's InternalIP, which makes `logs` work.
"$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
	--bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" --cert-dir="$RUN/certs" \
	--service-account-issuer=https://kubernetes.default.svc.cluster.local \
	--service-account-key-file="$RUN/sa.pub" --service-account-signing-key-file="$RUN/sa.key" \
	--service-cluster-ip-range=10.0.0.0/24 --token-auth-file="$RUN/tokens.csv" --authorization-mode=RBAC \
	--disable-admission-plugins=ServiceAccount --endpoint-reconciler-type=none \
	--kubelet-preferred-address-types=InternalIP > "$RUN/kube-apiserver.log" 2>&1 &
echo $! > "$RUN/kube-apiserver.pid"

cat > "$RUN/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: testcluster, cluster: {server: "https://127.0.0.1:$APISERVER_PORT", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: "$TOKEN"}}]
contexts: [{name: testcluster, context: {cluster: testcluster, user: admin}}]
current-context: testcluster
KC
chmod 600 "$RUN/kubeconfig" "$RUN/tokens.csv"

for i in $(seq 300); do
	curl -skf -H "Authorization: Bearer $TOKEN" "https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null 2>&1 && break
	if [ "$i" = 300 ]; then
		echo "up.sh: kube-apiserver did not become ready; last log lines:" >&2
		tail -20 "$RUN/kube-apiserver.log" >&2
		exit 1
	fi
	sleep 0.1
done

export KUBECONFIG="$RUN/kubeconfig"
"$BIN/kubectl" apply -f "$BIN/kwok-logs-crds.yaml" >/dev/null
"$BIN/kubectl" wait --for=condition=Established crd/logs.kwok.x-k8s.io crd/clusterlogs.kwok.x-k8s.io >/dev/null

"$BIN/kwok" --kubeconfig="$RUN/kubeconfig" --config="$BIN/kwok-stages.yaml" \
	--manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
	--node-ip=127.0.0.1 --node-port="$KWOK_PORT" --server-address="127.0.0.1:$KWOK_PORT" \
	--tls-cert-file="$RUN/kwok.crt" --tls-private-key-file="$RUN/kwok.key" \
	--enable-crds=Logs,ClusterLogs > "$RUN/kwok.log" 2>&1 &
echo $! > "$RUN/kwok.pid"

echo "$RUN/kubeconfig"
