package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

func newDiagnoseCmd(s IOStreams) *cobra.Command {
	var (
		output string
		lang   string
		failOn string
		src    *sourceFlags
	)
	cmd := &cobra.Command{
		Use:   "diagnose --snapshot DIR [JOB...]",
		Short: "Diagnose training jobs and print findings with their primary cause",
		Long: `Diagnose every training job in a snapshot (or only the JOBs named, as name or
namespace/name) and print the findings with the primary root cause of each job.

Exit codes: 0 diagnosed; 1 a finding at or above --fail-on; 2 bad usage or an
unreadable snapshot; 3 diagnosed, but some evidence could not be read (each
job's "missing" list says what and why; 1 wins over 3).`,
		Example: `  traindoc diagnose --snapshot fixtures/seed-master-oom-137
  traindoc diagnose --snapshot snap/ -o json ml-research/llama-ft
  traindoc diagnose --snapshot snap/ --fail-on error -o junit > junit.xml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if failOn != "" && !report.ValidSeverity(failOn) {
				return usageError(fmt.Errorf("--fail-on %q: want info, warning, error or critical", failOn))
			}
			// Flags are checked against the output registry before any
			// work: -o xml fails at once, not after a cluster was read.
			if err := render.Check(output, lang); err != nil {
				return usageError(err)
			}
			src.jobs = args
			rep, err := loadReport(cmd.Context(), src)
			if err != nil {
				return err
			}
			render.HidePaths(rep, src.snapshots)
			if err := llmFlagsOf(cmd.Flags()).apply(cmd.Context(), rep, lang, s.ErrOut); err != nil {
				return err
			}
			if err := writeReport(s.Out, output, rep, lang, failOn); err != nil {
				return err
			}
			if failOn != "" && rep.FailsAt(failOn) {
				return exitError{code: exitFindings}
			}
			if rep.Partial() {
				return exitError{code: exitPartial}
			}
			return nil
		},
	}
	src = bindSourceFlags(cmd.Flags(), s.ErrOut)
	bindLLMFlags(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: "+strings.Join(render.Names(), ", "))
	cmd.Flags().StringVar(&lang, "lang", "en", "report language: "+strings.Join(render.Languages, " or "))
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when any job has a finding at or above this severity (info, warning, error, critical)")
	return cmd
}

// writeReport writes the report in one of the registered output formats.
func writeReport(w io.Writer, format string, rep *report.Report, lang, failOn string) error {
	if _, err := render.Get(format); err != nil {
		return usageError(err)
	}
	return render.Write(w, format, rep, render.Options{Lang: lang, FailOn: failOn, Version: version})
}
