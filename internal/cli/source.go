package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
)

// sourceFlags say where the evidence comes from and which rules judge it.
type sourceFlags struct {
	cluster    *clusterFlags
	snapshots  []string
	policies   []string
	data       []string
	only       []string
	skip       []string
	jobs       []string
	allowEmpty bool
	// errOut is where progress and collection notes go.
	errOut io.Writer
}

// bindSourceFlags adds the flags every command that diagnoses shares.
func bindSourceFlags(fs *pflag.FlagSet, errOut io.Writer) *sourceFlags {
	s := &sourceFlags{errOut: errOut}
	fs.StringArrayVar(&s.snapshots, "snapshot", nil, "snapshot directory, or zip archive of one, to read (repeatable: jobs of all snapshots are diagnosed together); without it, the cluster of the current kubeconfig context is read")
	s.cluster = bindClusterFlags(fs)
	s.cluster.offline = true
	fs.StringVar(&s.cluster.keep, "keep-snapshot", "", "when reading a cluster, keep the snapshot taken in this directory")
	fs.StringArrayVar(&s.policies, "policies", nil, "directory of extra or overriding Rego rules (repeatable)")
	fs.StringArrayVar(&s.data, "data", nil, "YAML or JSON data file merged into the rules' data, e.g. thresholds (repeatable)")
	fs.StringSliceVar(&s.only, "rules", nil, "evaluate only these rule ids (comma-separated; see traindoc rules list)")
	fs.StringSliceVar(&s.skip, "skip-rules", nil, "do not evaluate these rule ids (comma-separated)")
	fs.BoolVar(&s.allowEmpty, "allow-empty", false, "accept a run that finds no training job (by default it is an error, so that a snapshot step that wrote nothing cannot pass a CI gate)")
	return s
}

func (s *sourceFlags) options() diagnose.Options {
	return diagnose.Options{Policies: s.policies, DataFiles: s.data, Rules: s.only, SkipRules: s.skip, Jobs: s.jobs, Version: version}
}

// loadReport diagnoses the source. Several snapshots make one report whose
// warnings name the snapshot they came from. A run that finds no job at
// all is an error unless --allow-empty is given.
func loadReport(ctx context.Context, s *sourceFlags) (*report.Report, error) {
	rep, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	if len(rep.Jobs) == 0 && !s.allowEmpty {
		return nil, noJobsError(s, rep)
	}
	return rep, nil
}

// noJobsError names where traindoc looked and with which filter.
func noJobsError(s *sourceFlags, rep *report.Report) error {
	where := "the cluster"
	if len(s.snapshots) > 0 {
		where = "snapshot " + strings.Join(s.snapshots, ", ")
	}
	msg := "no training job found in " + where
	if len(s.jobs) > 0 {
		msg += " matching " + strings.Join(s.jobs, ", ")
	}
	if len(rep.Warnings) > 0 {
		msg += " (warnings: " + strings.Join(rep.Warnings, "; ") + ")"
	}
	return usageError(errors.New(msg + "; pass --allow-empty to accept an empty result"))
}

func (s *sourceFlags) load(ctx context.Context) (*report.Report, error) {
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
	reps, err := d.All(ctx, s.snapshots)
	if err != nil {
		return nil, usageError(err)
	}
	if len(s.snapshots) == 1 {
		return reps[0], nil
	}
	// Each job keeps its own snapshot's collectedAt and cluster.
	merged := report.Merge(reps, s.snapshots)
	jobs, err := filterJobs(merged.Jobs, s.jobs, s.snapshots)
	if err != nil {
		return nil, usageError(err)
	}
	merged.Jobs = jobs
	merged.Sort()
	return merged, nil
}

// filterJobs keeps the jobs named by name or namespace/name; a name that
// matches no job of any snapshot is an error, as it is for one snapshot.
func filterJobs(jobs []report.Job, names, snapshots []string) ([]report.Job, error) {
	if len(names) == 0 {
		return jobs, nil
	}
	var out []report.Job
	matched := map[string]bool{}
	for _, j := range jobs {
		for _, n := range names {
			if n == j.Name || n == j.Key() {
				out = append(out, j)
				matched[n] = true
				break
			}
		}
	}
	for _, n := range names {
		if !matched[n] {
			return nil, fmt.Errorf("no job %q in snapshots %s", n, strings.Join(snapshots, ", "))
		}
	}
	return out, nil
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
	return live.load(ctx)
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
	if _, err := s.cluster.collect(ctx, s.jobs, dir, s.errOut); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}
