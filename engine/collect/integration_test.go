package collect_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/engine/collect/clustertest"
)

// fixturesDir holds the snapshot fixtures shared with the offline engine.
const fixturesDir = "../../fixtures"

func fixtureNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(fixturesDir)
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("no fixtures directory")
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// startWithCRDs starts a control plane with every supported job CRD installed.
func startWithCRDs(t *testing.T, opts clustertest.Options) *clustertest.Cluster {
	t.Helper()
	c := clustertest.Start(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := clustertest.InstallCRDs(ctx, c.Config, "testdata/crds"); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
	return c
}

func loadFixture(t *testing.T, c *clustertest.Cluster, dir string, strip bool) *clustertest.Loaded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	loaded, err := clustertest.LoadIntoCluster(ctx, c.Config, dir, clustertest.LoadOptions{
		KubeletPort:     c.KubeletPort,
		LogDir:          filepath.Join(c.Dir, "cri-logs"),
		StripTimestamps: strip,
	})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return loaded
}

func TestIntegrationLoadFixtures(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithCRDs(t, clustertest.Options{})
			loaded := loadFixture(t, c, filepath.Join(fixturesDir, name), false)
			t.Logf("%s: %d objects, %d logs, skipped %v, placeholders %v, repaired %v", name, len(loaded.Objects), loaded.Logs, loaded.Skipped, loaded.PlaceholderNodes, loaded.Repaired)
			opts := collect.DefaultOptions()
			opts.AllNamespaces = true
			res, err := collect.Collect(context.Background(), c.Config, "test", opts, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("jobs %v pods %d logs %d notes %q", res.Jobs, res.Pods, res.Logs, res.Notes)
		})
	}
}
