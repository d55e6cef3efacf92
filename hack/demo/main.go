// Command demo loads fixture snapshots into a running test cluster (the one
// hack/testcluster/up.sh starts) so that `make demo-cluster` can diagnose
// them live: it installs the CRDs of the supported job kinds, creates every
// object of each snapshot with its status, and serves the logs through
// kwok.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/internal/clustertest"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the test cluster")
	kubeletPort := flag.Int("kubelet-port", 10250, "kwok's kubelet port")
	logDir := flag.String("log-dir", "", "directory for the CRI log files kwok serves")
	crds := flag.String("crds", "engine/collect/testdata/crds", "directory of CRDs to install")
	flag.Parse()
	if err := run(*kubeconfig, *crds, *logDir, *kubeletPort, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, crds, logDir string, port int, fixtures []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg, _, err := collect.BuildConfig(kubeconfig, "")
	if err != nil {
		return err
	}
	if err := clustertest.InstallCRDs(ctx, cfg, crds); err != nil {
		return fmt.Errorf("install CRDs: %w", err)
	}
	for _, dir := range fixtures {
		res, err := clustertest.LoadIntoCluster(ctx, cfg, dir, clustertest.LoadOptions{
			KubeletPort: port, LogDir: logDir, StripTimestamps: true,
		})
		if err != nil {
			return fmt.Errorf("load %s: %w", dir, err)
		}
		fmt.Printf("loaded %s: %d objects, %d logs\n", dir, len(res.Objects), res.Logs)
	}
	return nil
}
