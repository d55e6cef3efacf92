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
