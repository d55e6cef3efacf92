package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

func newReportCmd(s IOStreams) *cobra.Command {
	var (
		outDir string
		from   string
		lang   string
		src    *sourceFlags
	)
	cmd := &cobra.Command{
		Use:   "report (--snapshot DIR | --from report.json) --out DIR [JOB...]",
		Short: "Write a Markdown and an HTML report per job, in English and Chinese",
		Long: `Diagnose a snapshot (or read a report saved with "diagnose -o json") and write,
for every job, <namespace>/<name>.en.md, .zh.md, .en.html and .zh.html under
--out. The HTML files are self-contained and work offline.

Exit codes: 0 written, 2 bad usage or unreadable input.`,
		Example: `  traindoc report --snapshot fixtures/exec-cuda-oom --out out/reports
  traindoc diagnose --snapshot snap/ -o json > report.json
  traindoc report --from report.json --out out/reports`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if outDir == "" {
				return usageError(fmt.Errorf("--out DIR is required"))
			}
			if err := render.CheckLang(lang); err != nil {
				return usageError(err)
			}
			if from != "" && len(src.snapshots) > 0 {
				return usageError(fmt.Errorf("use either --snapshot or --from, not both"))
			}
			var rep *report.Report
			if from != "" {
				r, err := report.ReadFile(from)
				if err != nil {
					return usageError(err)
				}
				jobs, err := filterJobs(r.Jobs, args, []string{from})
				if err != nil {
					return usageError(err)
				}
				r.Jobs = jobs
				if len(r.Jobs) == 0 && !src.allowEmpty {
					return usageError(fmt.Errorf("%s holds no job; pass --allow-empty to accept an empty result", from))
				}
				rep = r
			} else {
				src.jobs = args
				r, err := loadReport(cmd.Context(), src)
				if err != nil {
					return err
				}
				rep = r
			}
			render.HidePaths(rep, src.snapshots)
			if err := llmFlagsOf(cmd.Flags()).apply(cmd.Context(), rep, lang, s.ErrOut); err != nil {
				return err
			}
			files, err := render.WriteJobFiles(outDir, rep, render.Options{Version: version})
			if err != nil {
				return fmt.Errorf("write reports: %w", err)
			}
			for _, f := range files {
				fmt.Fprintln(s.Out, f)
			}
			if len(rep.Jobs) == 0 {
				fmt.Fprintln(s.ErrOut, "traindoc: no training jobs found; nothing written")
			}
			return nil
		},
	}
	src = bindSourceFlags(cmd.Flags(), s.ErrOut)
	bindLLMFlags(cmd.Flags())
	cmd.Flags().StringVar(&lang, "lang", "en", "language the LLM explanation is asked in (--llm); the reports are written in "+strings.Join(render.Languages, " and "))
	cmd.Flags().StringVar(&outDir, "out", "", "directory to write the reports into (created if missing)")
	cmd.Flags().StringVar(&from, "from", "", "render a report saved with \"traindoc diagnose -o json\" instead of diagnosing a snapshot")
	return cmd
}
