// Command traindoc tells why a distributed training job on Kubernetes
// failed, stalled or never started, and what to do about it.
package main

import "os"

func main() { os.Exit(run(os.Args[1:])) }
