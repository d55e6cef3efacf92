package site

import (
	"context"
	"flag"
	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/render"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testFixtures are the snapshots the fixture site is built from: a spread
// of layers, a cascade, a healthy job, and jobs with Chinese text worth
// searching. Diagnosing every fixture takes minutes on a busy machine;
// `make demo-site` builds from all of them.
var testFixtures = []string{
	"cascade-cuda-oom-nccl-timeout",
	"cascade-512-ranks",
	"seed-master-oom-137",
	"healthy-noisy-running",
	"job-debug-mode",
	"exec-cuda-oom",
	"exec-nccl-timeout",
	"node-failure",
	"pod-image-pull",
	"sched-quota-exceeded",
	"progress-stalled",
	"job-suspended",
	"healthy-running-ray",
	"seed-succeeded",
}

func historyReports(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "history", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no history reports in testdata/history: %v", err)
	}
	sort.Strings(paths)
	return paths
}

func fixtureDirs() []string {
	var dirs []string
	for _, f := range testFixtures {
		dirs = append(dirs, filepath.Join("..", "fixtures", f))
	}
	return dirs
}

var (
	fixtureOnce  sync.Once
	fixtureInput Input
	fixtureErr   error
)

// collectSnapshots is what the site command does: diagnose the snapshots
// of a new run (with their paths hidden), then collect them with saved
// reports into a site's input.
func collectSnapshots(ctx context.Context, reports, snapshots, policies []string) (Input, error) {
	d, err := diagnose.New(ctx, diagnose.Options{Policies: policies, Version: "test"})
	if err != nil {
		return Input{}, err
	}
	reps, err := d.All(ctx, snapshots)
	if err != nil {
		return Input{}, err
	}
	current := make([]Labeled, len(reps))
	for i, rep := range reps {
		render.HidePaths(rep, []string{snapshots[i]})
		current[i] = Labeled{Label: render.DisplayPath(snapshots[i]), Report: rep}
	}
	return Collect(Sources{Reports: reports, Current: current, Engine: d.Engine(), Policies: policies, Version: "test"})
}

// fixtureSiteInput diagnoses the test fixtures once per test binary, with
// the saved history runs before them and the test user policy loaded.
func fixtureSiteInput(t testing.TB) Input {
	t.Helper()
	fixtureOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		fixtureInput, fixtureErr = collectSnapshots(ctx, historyReports(t), fixtureDirs(), []string{filepath.Join("testdata", "policies")})
	})
	if fixtureErr != nil {
		t.Fatalf("collect fixture site input: %v", fixtureErr)
	}
	return fixtureInput
}

// reportsInput is the cheap input: saved reports only, with the test
// user policy.
func reportsInput(t testing.TB) Input {
	t.Helper()
	in, err := collectSnapshots(context.Background(), historyReports(t), nil, []string{filepath.Join("testdata", "policies")})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./site -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the golden file; review and run go test ./site -run %s -update", path, t.Name())
	}
}

var preBlock = regexp.MustCompile(`(?s)<pre[ >].*?</pre>`)

// withoutEvidence drops <pre> blocks: evidence and source listings are as
// long as the data, the page around them must stay small.
func withoutEvidence(b []byte) []byte { return preBlock.ReplaceAll(b, nil) }

func htmlPaths(files Files) []string {
	var out []string
	for _, p := range files.Paths() {
		if strings.HasSuffix(p, ".html") {
			out = append(out, p)
		}
	}
	return out
}
