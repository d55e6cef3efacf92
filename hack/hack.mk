# A real local cluster for anyone to try: kube-apiserver, etcd and kwok built
# from the Go module proxy (hack/k8s-tools), loaded with failing jobs.
# Included from the top-level Makefile.

DEMO_CLUSTER_RUN      ?= $(OUT)/demo-cluster
DEMO_CLUSTER_FIXTURES ?= fixtures/cascade-cuda-oom-nccl-timeout fixtures/seed-no-pods-insufficient-gpu \
	fixtures/exec-missing-module fixtures/pod-image-pull fixtures/healthy-running-ray

.PHONY: demo-cluster k8s-bin

k8s-bin: ## build kube-apiserver, etcd, kubectl and kwok into .cache/k8s-bin (about 5 minutes once)
	@hack/k8s-tools/build.sh

demo-cluster: build ## start a local API server with failing jobs, diagnose it live and build its site
	@set -e; bin=$$(hack/k8s-tools/build.sh); run=$(abspath $(DEMO_CLUSTER_RUN)); \
	rm -rf "$$run"; mkdir -p "$$run/logs"; \
	kc=$$(hack/testcluster/up.sh "$$bin" "$$run/cluster"); \
	trap 'hack/testcluster/down.sh "$$run/cluster" >/dev/null 2>&1' EXIT; \
	$(GO) run ./hack/demo --kubeconfig "$$kc" --log-dir "$$run/logs" $(DEMO_CLUSTER_FIXTURES); \
	echo; echo "traindoc diagnose --kubeconfig $$kc -A"; \
	$(BIN) diagnose --kubeconfig "$$kc" -A -o table; \
	$(BIN) site --kubeconfig "$$kc" -A --out "$$run/site"
