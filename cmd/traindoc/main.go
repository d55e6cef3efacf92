// Command traindoc tells why a distributed training job on Kubernetes
// failed, stalled or never started, and what to do about it.
package main

import (
	"os"

	"github.com/traindoc/traindoc/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() { os.Exit(cli.Main(os.Args[1:], cli.StdStreams(), version)) }
