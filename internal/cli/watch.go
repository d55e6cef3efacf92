package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/traindoc/traindoc/engine/watch/app"
)

func newWatchCmd(s IOStreams) *cobra.Command {
	o := app.Options{Version: version}
	var cl *clusterFlags
	cmd := &cobra.Command{
		Use:   "watch [JOB...]",
		Short: "Diagnose training jobs every --interval, remember what changed, and restart those a restart can fix",
		Long: `watch collects the jobs every --interval, diagnoses them, and records one
observation per job (phase, primary cause, step, throughput, GPU utilisation,
NCCL transport, newest checkpoint) in --state, so that a step that stopped,
GPUs that went idle or throughput that fell show against earlier rounds even
when the logs carry no timestamps, and so that history survives a restart of
traindoc. It logs one line per job per change.

With --restart, a job whose primary cause is retryable (the taxonomy's
retryable set: a lost node, an NCCL timeout, a stall...) is recreated from its
stored spec with the newest complete checkpoint passed through --resume-arg or
--resume-env, or restarted by --restart-command; never a missing module or a
spec error, never the same failure twice, at most --max-retries times with
exponential backoff from --retry-delay.

--replay DIR runs over saved rounds (DIR's sub-folders in name order, each a
snapshot) without waiting and without touching a cluster: restarts are
recorded, not carried out.`,
		Example: `  traindoc watch -n ml --state watch.json --exec
  traindoc watch -A --restart --resume-arg '--resume-from={{.Checkpoint}}' --state watch.json
  traindoc watch --replay engine/watch/testdata/replay/nccl-restart --restart -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Jobs = args
			o.Kubeconfig, o.Context, o.Collect = cl.kubeconfig, cl.context, cl.opts
			// The collector's --exec runs its checks; the watch adds its own.
			o.Probe = cl.opts.Exec
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := app.Watch(ctx, o, s.Out, s.ErrOut)
			switch {
			case errors.Is(err, app.ErrUsage):
				return usageError(err)
			case errors.Is(err, context.Canceled):
				return nil
			}
			return err
		},
	}
	fs := cmd.Flags()
	cl = bindClusterFlags(fs)
	fs.StringVar(&o.Replay, "replay", "", "replay the saved rounds in DIR (its sub-folders, in name order) instead of reading a cluster")
	fs.DurationVar(&o.Interval, "interval", time.Minute, "time between rounds")
	fs.IntVar(&o.Rounds, "rounds", 0, "stop after this many rounds (0: run until stopped)")
	fs.StringVar(&o.State, "state", "", "state file (JSON, replaced atomically), or configmap:NAMESPACE/NAME; without it history is kept in memory only")
	fs.StringVarP(&o.Output, "output", "o", "text", "text (log lines on stderr) or json (one JSON object per observation and decision on stdout)")
	fs.StringVar(&o.LogLevel, "log-level", "", "debug, info, warn or error (default $TRAINDOC_LOG_LEVEL, else info)")
	fs.StringVar(&o.LogFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&o.Site, "site", "", "rebuild the static site in DIR after each round")
	fs.IntVar(&o.SiteRuns, "site-runs", 48, "rounds the site's trends cover")
	fs.StringArrayVar(&o.Diagnose.Policies, "policies", nil, "directory of extra or overriding Rego rules (repeatable)")
	fs.StringArrayVar(&o.Diagnose.DataFiles, "data", nil, "YAML or JSON data file merged into the rules' data, e.g. thresholds (repeatable)")
	fs.StringSliceVar(&o.Diagnose.Rules, "rules", nil, "evaluate only these rule ids")
	fs.StringSliceVar(&o.Diagnose.SkipRules, "skip-rules", nil, "do not evaluate these rule ids")

	fs.BoolVar(&o.Policy.Restart, "restart", false, "restart jobs whose primary cause is retryable")
	fs.IntVar(&o.Policy.MaxRetries, "max-retries", 3, "restarts per job before giving up")
	fs.DurationVar(&o.Policy.RetryDelay, "retry-delay", time.Minute, "wait before the second restart of a job; each later one waits twice as long")
	fs.DurationVar(&o.Policy.RunningGrace, "running-grace", 10*time.Minute, "how long a job that still runs must keep a retryable cause (a stall) before it is restarted")
	fs.BoolVar(&o.Policy.DryRun, "dry-run", false, "decide and log restarts without carrying them out")
	fs.BoolVar(&o.Policy.RequireCheckpoint, "require-checkpoint", false, "do not restart a job with no known checkpoint")
	fs.StringVar(&o.ResumeArg, "resume-arg", "", "appended to the training command of every replica of a recreated job, e.g. '--resume-from={{.Checkpoint}}' (fields: .Checkpoint .Step .Namespace .Name .Kind .Attempt)")
	fs.StringArrayVar(&o.ResumeEnv, "resume-env", nil, "NAME=TEMPLATE set in every replica's training container of a recreated job (repeatable)")
	fs.StringVar(&o.RestartCommand, "restart-command", "", "restart with this command instead of recreating the job, run without a shell, e.g. 'kubectl -n {{.Namespace}} ... {{.Checkpoint}}'")
	fs.StringVar(&o.DeletePropagation, "delete-propagation", "foreground", "how the failed instance's pods go before it is recreated: foreground (wait for them) or background")
	fs.DurationVar(&o.RestartTimeout, "restart-timeout", 5*time.Minute, "how long a restart may take (the failed instance going away, the command running)")
	fs.StringVar(&o.CheckpointDir, "checkpoint-dir", "", "with --exec, list this checkpoint directory in each job (default: the one its arguments or environment name plainly)")
	fs.StringVar(&o.KeepSnapshots, "keep-snapshots", "", "keep every round's snapshot in DIR (for replays and post-mortems)")

	fs.BoolVar(&o.Events, "events", true, "write a Kubernetes Event (reason TraindocDiagnosis) on a job when its diagnosis changes")
	fs.BoolVar(&o.Annotate, "annotate", false, "annotate each job with its primary category (traindoc.dev/diagnosis)")
	fs.StringVar(&o.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics on this address (e.g. :9090)")
	fs.BoolVar(&o.LeaderElect, "leader-elect", false, "run only while holding a Lease, so that replicas never act twice")
	fs.StringVar(&o.LeaseNamespace, "lease-namespace", "", "namespace of the Lease (default: the pod's, or the context's)")
	fs.StringVar(&o.LeaseName, "lease-name", "traindoc-watch", "name of the Lease")
	fs.DurationVar(&o.LeaseDuration, "lease-duration", 15*time.Second, "how long a leader's lease lasts without renewal")
	return cmd
}
