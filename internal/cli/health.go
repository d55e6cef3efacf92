package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traindoc/traindoc/engine/watch/app"
	"github.com/traindoc/traindoc/engine/watch/health"
)

func newHealthCmd(s IOStreams) *cobra.Command {
	var (
		output, checkpointDir string
		src                   *sourceFlags
	)
	cmd := &cobra.Command{
		Use:   "health [JOB...]",
		Short: "Show a job's GPU utilisation, NCCL transport, checkpoint progress, Ray resources and issues in one call",
		Long: `health reads a job (from --snapshot or the cluster; add --exec for nvidia-smi,
ray status, the checkpoint listing and Ray's NCCL lines) and shows GPU
utilisation per GPU and on average, EFA/OFI against socket transport,
checkpoint progress (newest complete step and its age), Ray resources used
against available, and the issues the rules found.`,
		Example: `  traindoc health -n rl verl-grpo-training --exec
  traindoc health --snapshot snap/ -o json ml/llama-ft`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError(fmt.Errorf("-o %q: want text or json", output))
			}
			if len(src.snapshots) > 1 {
				return usageError(errors.New("health reads one --snapshot"))
			}
			o := app.HealthOptions{
				Kubeconfig: src.cluster.kubeconfig, Context: src.cluster.context, Collect: src.cluster.opts,
				Probe: src.cluster.opts.Exec, CheckpointDir: checkpointDir, Diagnose: src.options(), Jobs: args,
			}
			o.Diagnose.Jobs = nil
			if len(src.snapshots) == 1 {
				o.Snapshot = src.snapshots[0]
			}
			hs, err := app.Health(cmd.Context(), o)
			if errors.Is(err, app.ErrUsage) {
				return usageError(err)
			}
			if err != nil {
				return err
			}
			if len(hs) == 0 && !src.allowEmpty {
				return usageError(errors.New("no training job found; pass --allow-empty to accept an empty result"))
			}
			if output == "json" {
				return health.WriteJSON(s.Out, hs)
			}
			return health.WriteText(s.Out, hs)
		},
	}
	src = bindSourceFlags(cmd.Flags(), s.ErrOut)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	cmd.Flags().StringVar(&checkpointDir, "checkpoint-dir", "", "with --exec, list this checkpoint directory (default: the one the job's arguments or environment name plainly)")
	return cmd
}
