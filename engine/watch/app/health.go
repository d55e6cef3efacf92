package app

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/watch/health"
	"github.com/traindoc/traindoc/engine/watch/kube"
	"github.com/traindoc/traindoc/engine/watch/probe"
)

// HealthOptions are what `traindoc health` can be told.
type HealthOptions struct {
	// Snapshot is read when set; otherwise one round is collected from
	// the cluster.
	Snapshot            string
	Kubeconfig, Context string
	Collect             collect.Options
	Probe               bool
	CheckpointDir       string
	Diagnose            diagnose.Options
	Jobs                []string
}

// Health returns the health of the jobs named (all when none).
func Health(ctx context.Context, o HealthOptions) ([]health.Health, error) {
	d, err := diagnose.New(ctx, o.Diagnose)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	dir := o.Snapshot
	if dir == "" {
		rc, ctxName, err := collect.BuildConfig(o.Kubeconfig, o.Context)
		if err != nil {
			return nil, fmt.Errorf("%w: no cluster to read (give --snapshot DIR, or --kubeconfig and --context): %w", ErrUsage, err)
		}
		copts := o.Collect
		copts.Jobs = o.Jobs
		if copts.Namespace == "" && !copts.AllNamespaces {
			copts.Namespace = collect.DefaultNamespace(o.Kubeconfig, o.Context)
		}
		src := &kube.Live{Config: rc, Context: ctxName, Options: copts}
		if o.Probe {
			cs, err := kubernetes.NewForConfig(rc)
			if err != nil {
				return nil, fmt.Errorf("create clientset: %w", err)
			}
			src.Probe = &probe.Options{CheckpointDir: o.CheckpointDir, Timeout: copts.ExecTimeout}
			src.Exec = kube.Exec(rc, cs)
		}
		r, err := src.Next(ctx)
		if err != nil {
			return nil, err
		}
		defer r.Cleanup()
		dir = r.Dir
	}
	hs, err := health.Of(ctx, d, dir, o.Jobs)
	if err != nil && o.Snapshot != "" {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return hs, err
}
