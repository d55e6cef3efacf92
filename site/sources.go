package site

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/report"
)

// Sources say what a site is built from: saved reports (earlier runs), the
// run diagnosed now (one report per snapshot), and the rules. The site
// renders reports; it never runs a diagnosis itself.
type Sources struct {
	Reports []string
	Current []Labeled
	// Engine is the rule set the catalogue documents.
	Engine *policy.Engine
	// Policies are the user policy directories, to show rule files by
	// their path there.
	Policies []string
	Version  string
}

// Labeled is one snapshot's report with the name the site shows for the
// snapshot.
type Labeled struct {
	Label  string
	Report *report.Report
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

// ErrNoInput means neither reports nor a current run were given.
var ErrNoInput = errors.New("give --snapshot DIR or --reports FILE.json (or both)")

// Collect reads the saved reports, merges the current run's reports into
// one run, and takes the rules for the catalogue.
func Collect(src Sources) (Input, error) {
	if len(src.Reports) == 0 && len(src.Current) == 0 {
		return Input{}, ErrNoInput
	}
	if src.Engine == nil {
		return Input{}, errors.New("site: no rule set for the catalogue")
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
	if len(src.Current) > 0 {
		reps := make([]*report.Report, len(src.Current))
		labels := make([]string, len(src.Current))
		for i, c := range src.Current {
			reps[i], labels[i] = c.Report, c.Label
			exercise(in.Exercised, c.Report, c.Label)
		}
		for rule := range in.Exercised {
			sort.Strings(in.Exercised[rule])
		}
		in.Runs = append(in.Runs, report.Merge(reps, labels))
	}
	in.Rules = src.Engine.Rules()
	in.Categories = src.Engine.Categories()
	in.RuleFiles = LoadRuleFiles(in.Rules, src.Policies)
	SortRuns(in.Runs)
	return in, nil
}

// exercise records that the snapshot called label exercised the rules of
// rep's findings.
func exercise(exercised map[string][]string, rep *report.Report, label string) {
	seen := map[string]bool{}
	for _, j := range rep.Jobs {
		for _, f := range j.Findings {
			if !seen[f.Rule] {
				seen[f.Rule] = true
				exercised[f.Rule] = append(exercised[f.Rule], label)
			}
		}
	}
}
