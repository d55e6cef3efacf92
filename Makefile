# traindoc — build, demo and tests. `make help` lists the targets.

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
BIN       := bin/traindoc
FIXTURES  := $(sort $(dir $(wildcard fixtures/*/expected.yaml)))
OUT       ?= out
FUZZTIME  ?= 1m

.PHONY: help build install release image demo fixtures test test-short test-rego vet lint fmt-check fmt-rego bench fuzz fuzz-short clean distclean

STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

help: ## list targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/traindoc
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/traindoc

install: ## install traindoc into $(go env GOBIN) or $(go env GOPATH)/bin, from this clone
	$(GO) install -trimpath -ldflags "$(LDFLAGS)" ./cmd/traindoc

DIST ?= dist
release: ## static binaries and tarballs for linux and darwin (amd64, arm64) in dist/
	@set -e; for os in linux darwin; do for arch in amd64 arm64; do \
		d=$(DIST)/traindoc-$(VERSION)-$$os-$$arch; mkdir -p $$d; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=false -ldflags "$(LDFLAGS)" -o $$d/traindoc ./cmd/traindoc; \
		cp README.md $$d/; cp -r deploy $$d/; \
		tar -C $(DIST) -czf $$d.tar.gz $$(basename $$d); rm -rf $$d; echo $$d.tar.gz; \
	done; done

image: ## the container image (needs a Docker engine)
	docker build --build-arg VERSION=$(VERSION) -t traindoc:$(VERSION) .

fixtures: ## generate the large fixture logs that are not committed
	$(GO) run ./fixtures/internal/biglog/cmd/genbiglog fixtures/big-million-lines

demo: build fixtures ## diagnose every bundled fixture (no cluster, no LLM) and print a summary
	@# Exit 3 says some fixtures lack logs of pods that ran (listed in the
	@# report); the demo diagnoses them all the same.
	@$(BIN) diagnose $(foreach d,$(FIXTURES),--snapshot $(d)) -o table || [ $$? -eq 3 ]
	@echo
	@echo "One job in detail:"
	@$(BIN) diagnose --snapshot fixtures/cascade-512-ranks || [ $$? -eq 3 ]
	@$(MAKE) --no-print-directory demo-site

test: vet lint fmt-check test-deps ## run every test: unit, Rego, fixtures, browser, real API server, and each fuzz target briefly
	TRAINDOC_REQUIRE_BROWSER=1 TRAINDOC_REQUIRE_CLUSTER=1 TRAINDOC_K8S_BIN="$$(hack/k8s-tools/build.sh)" \
		$(GO) test -count=1 -timeout 25m ./...
	$(MAKE) --no-print-directory fuzz-short

test-short: ## unit, Rego and fixture tests only (no browser, no API server)
	$(GO) test -short ./...

test-rego: build ## run the Rego rule tests the way `opa test` does
	$(BIN) rules test

vet: ## go vet
	$(GO) vet ./...

lint: ## staticcheck (fetched from the Go module proxy on first use)
	$(STATICCHECK) ./...

fmt-check: ## fail when Go or Rego files are not formatted
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^hack/k8s-tools/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run ./cmd/traindoc rules fmt policies

fmt-rego: ## format the Rego rules in place
	$(GO) run ./cmd/traindoc rules fmt -w policies

bench: ## the measurements recorded in README's Performance section (generated inputs, cached outside the repository; about ten minutes)
	$(GO) run ./hack/bench

fuzz: ## run every Go fuzz target (found by hack/fuzz.sh), one at a time, FUZZTIME each (default 1m)
	FUZZTIME=$(FUZZTIME) GO=$(GO) hack/fuzz.sh

fuzz-short: ## every fuzz target for 5 s, short enough for make test
	FUZZTIME=5s GO=$(GO) hack/fuzz.sh

test-deps: browser-deps ## install what the tests need (Chromium; the API server binaries are built by the test target)

clean: ## remove what the build and the demo made
	rm -rf bin $(OUT) $(DIST) traindoc fixtures/big-million-lines/logs

distclean: clean ## also remove the cached API server binaries (.cache)
	rm -rf .cache

-include render/render.mk
-include site/site.mk
-include hack/hack.mk
