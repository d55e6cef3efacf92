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
	snapshot string
	policies []string
	data     []string
	jobs     []string
}

// bindSourceFlags adds the flags every command that diagnoses shares.
func bindSourceFlags(fs *pflag.FlagSet) *sourceFlags {
	s := &sourceFlags{}
	fs.StringVar(&s.snapshot, "snapshot", "", "snapshot directory to read (see docs/snapshot-layout.md)")
	fs.StringArrayVar(&s.policies, "policies", nil, "directory of extra or overriding Rego rules (repeatable)")
	fs.StringArrayVar(&s.data, "data", nil, "YAML or JSON data file merged into the rules' data, e.g. thresholds (repeatable)")
	return s
}

func (s *sourceFlags) options() diagnose.Options {
	return diagnose.Options{Policies: s.policies, DataFiles: s.data, Jobs: s.jobs, Version: version}
}

// loadReport diagnoses the source.
func loadReport(ctx context.Context, s *sourceFlags) (*report.Report, error) {
	if s.snapshot == "" {
		return nil, usageError(fmt.Errorf("--snapshot DIR is required"))
	}
	rep, err := diagnose.Run(ctx, s.snapshot, s.options())
	if err != nil {
		return nil, usageError(err)
	}
	return rep, nil
}
