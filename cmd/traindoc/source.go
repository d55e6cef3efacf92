package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
)

// sourceFlags say where the evidence comes from and which rules judge it.
type sourceFlags struct {
	cluster   *clusterFlags
	snapshots []string
	policies  []string
	data      []string
	jobs      []string
}

// bindSourceFlags adds the flags every command that diagnoses shares.
func bindSourceFlags(fs *pflag.FlagSet) *sourceFlags {
	s := &sourceFlags{}
	fs.StringArrayVar(&s.snapshots, "snapshot", nil, "snapshot directory to read (repeatable: jobs of all snapshots are diagnosed together); without it, the cluster of the current kubeconfig context is read")
	s.cluster = bindClusterFlags(fs)
	fs.StringVar(&s.cluster.keep, "keep-snapshot", "", "when reading a cluster, keep the snapshot taken in this directory")
	fs.StringArrayVar(&s.policies, "policies", nil, "directory of extra or overriding Rego rules (repeatable)")
	fs.StringArrayVar(&s.data, "data", nil, "YAML or JSON data file merged into the rules' data, e.g. thresholds (repeatable)")
	return s
}

func (s *sourceFlags) options() diagnose.Options {
	return diagnose.Options{Policies: s.policies, DataFiles: s.data, Jobs: s.jobs, Version: version}
}

// loadReport diagnoses the source. Several snapshots make one report whose
// warnings name the snapshot they came from.
func loadReport(ctx context.Context, s *sourceFlags) (*report.Report, error) {
	if len(s.snapshots) == 0 {
		return s.loadLive(ctx)
	}
	opts := s.options()
	if len(s.snapshots) > 1 {
		// Job names filter the merged set below, not each snapshot.
		opts.Jobs = nil
	}
	d, err := diagnose.New(ctx, opts)
	if err != nil {
		return nil, usageError(err)
	}
	var merged *report.Report
	for _, dir := range s.snapshots {
		rep, err := d.Diagnose(ctx, dir)
		if err != nil {
			return nil, usageError(err)
		}
		if len(s.snapshots) == 1 {
			return rep, nil
		}
		if merged == nil {
			merged = &report.Report{SchemaVersion: rep.SchemaVersion, Tool: rep.Tool, Warnings: []string{}}
		}
		if rep.CollectedAt > merged.CollectedAt {
			merged.CollectedAt = rep.CollectedAt
		}
		for _, w := range rep.Warnings {
			merged.Warnings = append(merged.Warnings, dir+": "+w)
		}
		merged.Jobs = append(merged.Jobs, rep.Jobs...)
	}
	merged.Jobs = filterJobs(merged.Jobs, s.jobs)
	merged.Sort()
	return merged, nil
}

func filterJobs(jobs []report.Job, names []string) []report.Job {
	if len(names) == 0 {
		return jobs
	}
	var out []report.Job
	for _, j := range jobs {
		for _, n := range names {
			if n == j.Name || n == j.Key() {
				out = append(out, j)
				break
			}
		}
	}
	return out
}

// loadLive takes a snapshot of the cluster and diagnoses it: the live path
// and the offline path are one path. From then on the command reads the
// snapshot it took as it reads any other, through --snapshot, and the
// snapshot stays until the command ends.
func (s *sourceFlags) loadLive(ctx context.Context) (*report.Report, error) {
	dir, cleanup, err := s.takeSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	atEnd(ctx, cleanup)
	s.snapshots = []string{dir}
	live := *s
	// The collector already selected the jobs named.
	live.jobs = nil
	return loadReport(ctx, &live)
}

// takeSnapshot collects the cluster into --keep-snapshot, or into a
// temporary directory that cleanup removes.
func (s *sourceFlags) takeSnapshot(ctx context.Context) (dir string, cleanup func(), err error) {
	dir, cleanup = s.cluster.keep, func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "traindoc-snapshot-")
		if err != nil {
			return "", nil, fmt.Errorf("snapshot directory: %w", err)
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	if _, err := s.cluster.collect(ctx, s.jobs, dir, os.Stderr); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}
