package site

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

// Sources say what a site is built from: saved reports (earlier runs),
// snapshot directories (one new run, diagnosed now), and the rules.
type Sources struct {
	Reports   []string
	Snapshots []string
	Policies  []string
	DataFiles []string
	Version   string
}

// ExpandReports turns report arguments into files: a directory stands for
// the *.json files in it, in name order, so a CI job can pass the folder it
// keeps its reports in.
func ExpandReports(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", a, err)
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		files, err := filepath.Glob(filepath.Join(a, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("reports in %s: %w", a, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("reports in %s: no *.json file", a)
		}
		sort.Strings(files)
		out = append(out, files...)
	}
	return out, nil
}

// ErrNoInput means neither reports nor snapshots were given.
var ErrNoInput = errors.New("give --snapshot DIR or --reports FILE.json (or both)")

// Collect reads the reports, diagnoses the snapshots into one run and
// loads the rules for the catalogue. The rules are loaded even when only
// reports are given: the catalogue documents the rules of this build.
func Collect(ctx context.Context, src Sources) (Input, error) {
	if len(src.Reports) == 0 && len(src.Snapshots) == 0 {
		return Input{}, ErrNoInput
	}
	in := Input{Version: src.Version, Exercised: map[string][]string{}, PolicyDirs: src.Policies}
	reports, err := ExpandReports(src.Reports)
	if err != nil {
		return Input{}, err
	}
	for _, path := range reports {
		r, err := report.ReadFile(path)
		if err != nil {
			return Input{}, err
		}
		in.Runs = append(in.Runs, r)
	}
	var engine *policy.Engine
	if len(src.Snapshots) > 0 {
		d, err := diagnose.New(ctx, diagnose.Options{Policies: src.Policies, DataFiles: src.DataFiles, Version: src.Version})
		if err != nil {
			return Input{}, err
		}
		engine = d.Engine()
		run, err := diagnoseAll(ctx, d, src.Snapshots, in.Exercised)
		if err != nil {
			return Input{}, err
		}
		in.Runs = append(in.Runs, run)
	} else {
		e, err := policy.Load(ctx, policy.Options{Dirs: src.Policies, DataFiles: src.DataFiles})
		if err != nil {
			return Input{}, err
		}
		engine = e
	}
	in.Rules = engine.Rules()
	in.Categories = engine.Categories()
	in.RuleFiles = LoadRuleFiles(in.Rules, src.Policies)
	SortRuns(in.Runs)
	return in, nil
}

// diagnoseAll diagnoses every snapshot directory into one run, as
// `traindoc diagnose` does with several --snapshot flags, and records
// which directories exercised which rules.
func diagnoseAll(ctx context.Context, d *diagnose.Diagnoser, dirs []string, exercised map[string][]string) (*report.Report, error) {
	var merged *report.Report
	for _, dir := range dirs {
		rep, err := d.Diagnose(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("diagnose %s: %w", render.DisplayPath(dir), err)
		}
		// A published site must not say where the snapshot lay on the
		// machine that built it.
		render.HidePaths(rep, []string{dir})
		name := render.DisplayPath(dir)
		seen := map[string]bool{}
		for _, j := range rep.Jobs {
			for _, f := range j.Findings {
				if !seen[f.Rule] {
					seen[f.Rule] = true
					exercised[f.Rule] = append(exercised[f.Rule], name)
				}
			}
		}
		if len(dirs) == 1 {
			return rep, nil
		}
		if merged == nil {
			merged = &report.Report{SchemaVersion: rep.SchemaVersion, Tool: rep.Tool, Source: rep.Source, Warnings: []string{}}
		}
		if rep.CollectedAt > merged.CollectedAt {
			merged.CollectedAt = rep.CollectedAt
		}
		if rep.Source != merged.Source {
			merged.Source = ""
		}
		for _, w := range rep.Warnings {
			merged.Warnings = append(merged.Warnings, name+": "+w)
		}
		merged.Jobs = append(merged.Jobs, rep.Jobs...)
	}
	for rule := range exercised {
		sort.Strings(exercised[rule])
	}
	merged.Sort()
	return merged, nil
}
