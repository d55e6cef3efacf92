# traindoc: build a static binary, run it on distroless.
#
#   docker build -t traindoc .
#   docker run --rm -v "$PWD/snap:/snap" traindoc diagnose --snapshot /snap
#
# Inside a cluster the binary finds its credentials through the pod's
# ServiceAccount (see deploy/).

FROM golang:1.26 AS build
WORKDIR /src
# Dependencies first, so source edits do not invalidate the module cache layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: the result runs on distroless/static (no libc). -trimpath and no
# VCS stamping keep the build reproducible across checkouts.
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/traindoc ./cmd/traindoc

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/traindoc /usr/local/bin/traindoc
# nonroot (65532): the collector only reads from the API server.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/traindoc"]
