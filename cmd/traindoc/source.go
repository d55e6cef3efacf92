package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
)

// sourceFlags say where the evidence comes from and which rules judge it.
type sourceFlags struct {
	snapshots []string
	policies  []string
	data     []string
	jobs     []string
}

// bindSourceFlags adds the flags every command that diagnoses shares.
func bindSourceFlags(fs *pflag.FlagSet) *sourceFlags {
	s := &sourceFlags{}
	fs.StringArrayVar(&s.snapshots, "snapshot", nil, "snapshot directory to read (repeatable: jobs of all snapshots are diagnosed together)")
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
		return nil, usageError(fmt.Errorf("--snapshot DIR is required"))
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
