package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/traindoc/traindoc/engine/collect"
)

// cleanupsKey carries, in a command's context, what to undo when the
// command ends.
type cleanupsKey struct{}

type cleanups struct {
	mu  sync.Mutex
	fns []func()
}

// withCleanups returns a context in which atEnd registers work, and the
// function that runs it, last registered first.
func withCleanups(ctx context.Context) (context.Context, func()) {
	c := &cleanups{}
	return context.WithValue(ctx, cleanupsKey{}, c), func() {
		c.mu.Lock()
		fns := c.fns
		c.fns = nil
		c.mu.Unlock()
		for i := len(fns) - 1; i >= 0; i-- {
			fns[i]()
		}
	}
}

// atEnd runs f when the command of ctx ends: a live snapshot taken into a
// temporary directory must outlive the diagnosis, because the steps after
// it (the LLM explanation reads the snapshot's prompts/) read it too.
// Without a command context f runs at once.
func atEnd(ctx context.Context, f func()) {
	c, ok := ctx.Value(cleanupsKey{}).(*cleanups)
	if !ok {
		f()
		return
	}
	c.mu.Lock()
	c.fns = append(c.fns, f)
	c.mu.Unlock()
}

// clusterFlags are the kubectl-style flags that select what to read from a
// live cluster.
type clusterFlags struct {
	kubeconfig, context string
	opts                collect.Options
	// keep is where a live diagnosis keeps the snapshot it took; empty
	// means a temporary directory removed afterwards.
	keep string
	// deadline bounds the whole collection; what was read by then is kept.
	deadline time.Duration
	// offline is true for commands that can also read a snapshot
	// (--snapshot): the hint when no cluster is reachable names it only
	// there.
	offline bool
}

func bindClusterFlags(fs *pflag.FlagSet) *clusterFlags {
	c := &clusterFlags{opts: collect.DefaultOptions()}
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config; in-cluster config inside a pod)")
	fs.StringVar(&c.context, "context", "", "kubeconfig context to use")
	fs.StringVarP(&c.opts.Namespace, "namespace", "n", "", "namespace to read jobs from (default: the context's namespace)")
	fs.BoolVarP(&c.opts.AllNamespaces, "all-namespaces", "A", false, "read jobs in every namespace")
	fs.StringVarP(&c.opts.Selector, "selector", "l", "", "label selector the jobs must match")
	fs.Int64Var(&c.opts.LogBytes, "log-bytes", c.opts.LogBytes, "keep at most this many bytes of each container log (0: no limit)")
	fs.Int64Var(&c.opts.LogTail, "log-tail", 0, "keep at most this many last lines of each container log (0: no limit)")
	fs.BoolVar(&c.opts.Timestamps, "timestamps", true, "ask for --timestamps on log lines (needed for stall and progress times)")
	fs.BoolVar(&c.opts.Previous, "previous", true, "also read the log of the previous instance of restarted containers")
	fs.DurationVar(&c.opts.RequestTimeout, "request-timeout", c.opts.RequestTimeout, "client-side timeout of each API request (log streams get four times as long)")
	fs.DurationVar(&c.deadline, "collect-timeout", 0, "stop collecting after this long and diagnose what was read (0: no limit)")
	fs.BoolVar(&c.opts.Exec, "exec", false, "run read-only diagnostics inside running pods (nvidia-smi, ray status, checkpoint listing); needs pods/exec")
	fs.DurationVar(&c.opts.ExecTimeout, "exec-timeout", c.opts.ExecTimeout, "timeout of each in-pod command")
	fs.IntVar(&c.opts.Concurrency, "concurrency", c.opts.Concurrency, "log and exec requests in flight at once")
	fs.Float32Var(&c.opts.QPS, "qps", c.opts.QPS, "client-side rate limit on API requests per second")
	fs.IntVar(&c.opts.Burst, "burst", c.opts.Burst, "client-side burst above --qps")
	fs.StringVar(&c.opts.PromptConfigMap, "prompt-configmap", "", "namespace/name of a ConfigMap whose <kind>.tmpl keys override the LLM prompts")
	return c
}

// collect writes a snapshot of the cluster into dir.
func (c *clusterFlags) collect(ctx context.Context, jobs []string, dir string, stderr io.Writer) (*collect.Result, error) {
	cfg, ctxName, err := collect.BuildConfig(c.kubeconfig, c.context)
	if err != nil {
		hint := "give --kubeconfig and --context"
		if c.offline {
			hint = "give --snapshot DIR, or --kubeconfig and --context"
		}
		return nil, usageError(fmt.Errorf("no cluster to read (%s): %w", hint, err))
	}
	opts := c.opts
	opts.Jobs = jobs
	if opts.Namespace == "" && !opts.AllNamespaces {
		opts.Namespace = collect.DefaultNamespace(c.kubeconfig, c.context)
	}
	// A progress line on a terminal only: CI logs stay clean.
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts.Progress = stderr
	}
	cctx := ctx
	if c.deadline > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, c.deadline)
		defer cancel()
	}
	res, err := collect.Collect(cctx, cfg, ctxName, opts, dir)
	deadline := cctx.Err() != nil && ctx.Err() == nil
	if (errors.Is(err, collect.ErrUnreachable) || deadline) && res != nil {
		// Keep what was read; the snapshot's notes say what is missing.
		fmt.Fprintf(stderr, "traindoc: %v; the snapshot is partial\n", err)
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("collect from cluster: %w", err)
	}
	return res, nil
}

func newSnapshotCmd(s IOStreams) *cobra.Command {
	var out string
	var cl *clusterFlags
	cmd := &cobra.Command{
		Use:   "snapshot -o DIR [JOB...]",
		Short: "Collect training jobs, pods, events, logs and in-pod outputs from a cluster into a snapshot directory",
		Long: `Read the training jobs a cluster serves (every supported kind whose CRD is
installed), their pods, events, nodes, quotas, pod groups and logs, and write them
in the snapshot layout (docs/snapshot-layout.md). Anything that cannot be read
(for example events when RBAC forbids them) is recorded in snapshot.yaml and
becomes a note in the report, not a failure.`,
		Example: `  traindoc snapshot -n ml-research -o snap/
  traindoc snapshot -A -l team=llm --exec -o snap/ && traindoc diagnose --snapshot snap/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError(fmt.Errorf("-o DIR is required"))
			}
			start := time.Now()
			res, err := cl.collect(cmd.Context(), args, out, s.ErrOut)
			if err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "wrote %s: %d jobs, %d objects (%d pods), %d logs, %d exec outputs in %s\n",
				res.Dir, len(res.Jobs), res.Objects, res.Pods, res.Logs, res.Exec, time.Since(start).Round(time.Millisecond))
			for _, n := range res.Notes {
				fmt.Fprintf(s.Out, "note: %s\n", n)
			}
			return nil
		},
	}
	cl = bindClusterFlags(cmd.Flags())
	cmd.Flags().StringVarP(&out, "output", "o", "", "directory to write the snapshot to")
	return cmd
}
