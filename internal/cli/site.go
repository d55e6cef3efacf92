package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
	"github.com/traindoc/traindoc/site"
)

func newSiteCmd(s IOStreams) *cobra.Command {
	var reports []string
	var out, saveReport, lang string
	var src *sourceFlags
	cmd := &cobra.Command{
		Use:   "site [--snapshot DIR...] [--reports FILE.json|DIR]... [FILE.json...] --out DIR",
		Short: "Build the static site: job index, job reports, rule catalogue, trends",
		Long: `site builds a static site in English and Chinese from a new run (--snapshot
directories, diagnosed now) and/or saved JSON reports of earlier runs
(--reports, from "traindoc diagnose -o json"; a folder stands for the *.json
files in it, and extra arguments are report files too, so a shell glob after
--reports works). The newest run fills the job
index and job pages; every run feeds the trends. The rule catalogue shows the
built-in rules and those of --policies.

The output uses relative links only and loads nothing from the network, so it
works from file:// (a downloaded CI artifact) and from any static host.`,
		Example: `  traindoc site --snapshot ./snap --out public
  traindoc site --reports history/ --snapshot ./snap --out public
  traindoc site --out public --reports runs/*.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError(errors.New("--out DIR is required"))
			}
			if err := render.CheckLang(lang); err != nil {
				return usageError(err)
			}
			snapshots := src.snapshots
			if len(snapshots) == 0 && len(reports) == 0 && len(args) == 0 {
				// Neither snapshots nor saved reports: read the cluster.
				dir, cleanup, err := src.takeSnapshot(cmd.Context())
				if err != nil {
					return err
				}
				defer cleanup()
				snapshots = []string{dir}
			}
			current, engine, err := diagnoseForSite(cmd.Context(), src, snapshots)
			if err != nil {
				return err
			}
			in, err := site.Collect(site.Sources{
				Reports: append(append([]string(nil), reports...), args...), Current: current,
				Engine: engine, Policies: src.policies, Version: version,
			})
			if err != nil {
				return usageError(err)
			}
			// The LLM explains the newest run, whose jobs the site shows;
			// explanations saved in earlier reports are shown as they are.
			if err := llmFlagsOf(cmd.Flags()).apply(cmd.Context(), in.Runs[len(in.Runs)-1], lang, s.ErrOut); err != nil {
				return err
			}
			if saveReport != "" && len(snapshots) > 0 {
				if err := saveRun(saveReport, in.Runs[len(in.Runs)-1]); err != nil {
					return err
				}
			}
			if err := site.Build(in, out); err != nil {
				if errors.Is(err, site.ErrNotSite) {
					return usageError(err)
				}
				return err
			}
			abs, err := filepath.Abs(filepath.Join(out, "index.html"))
			if err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "site: %d run(s), %d job(s) in the latest, %d rule(s)\nopen file://%s\n",
				len(in.Runs), len(in.Runs[len(in.Runs)-1].Jobs), len(in.Rules), filepath.ToSlash(abs))
			return nil
		},
	}
	src = bindSourceFlags(cmd.Flags(), s.ErrOut)
	bindLLMFlags(cmd.Flags())
	cmd.Flags().StringVar(&lang, "lang", "en", "language the LLM explanation is asked in (--llm); the site is written in "+strings.Join(render.Languages, " and "))
	cmd.Flags().StringArrayVar(&reports, "reports", nil, "saved JSON report of a run (repeatable; several give trends)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output folder (created; an earlier site in it is replaced)")
	cmd.Flags().StringVar(&saveReport, "save-report", "", "also save the new run's JSON report in this folder (as <collectedAt>.json), so that the next run's --reports shows the trend")
	return cmd
}

// diagnoseForSite diagnoses the snapshots of a new run, one report each
// with the snapshot's path hidden (a published site must not say where a
// snapshot lay on the machine that built it), and returns the rule set the
// catalogue documents.
func diagnoseForSite(ctx context.Context, src *sourceFlags, snapshots []string) ([]site.Labeled, *policy.Engine, error) {
	if len(snapshots) == 0 {
		e, err := policy.Load(ctx, policy.Options{Dirs: src.policies, DataFiles: src.data})
		if err != nil {
			return nil, nil, usageError(err)
		}
		return nil, e, nil
	}
	opts := src.options()
	opts.Jobs = nil
	d, err := diagnose.New(ctx, opts)
	if err != nil {
		return nil, nil, usageError(err)
	}
	reps, err := d.All(ctx, snapshots)
	if err != nil {
		return nil, nil, usageError(err)
	}
	out := make([]site.Labeled, len(reps))
	for i, rep := range reps {
		render.HidePaths(rep, []string{snapshots[i]})
		out[i] = site.Labeled{Label: render.DisplayPath(snapshots[i]), Report: rep}
	}
	return out, d.Engine(), nil
}

// saveRun writes a run's report as <dir>/<collectedAt>.json.
func saveRun(dir string, rep *report.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save report: %w", err)
	}
	name := strings.NewReplacer(":", "", "-", "").Replace(rep.CollectedAt)
	if name == "" {
		name = "run"
	}
	f, err := os.Create(filepath.Join(dir, name+".json"))
	if err != nil {
		return fmt.Errorf("save report: %w", err)
	}
	if err := rep.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("save report %s: %w", f.Name(), err)
	}
	return f.Close()
}
