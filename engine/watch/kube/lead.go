package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaderConfig configures leader election on a Lease.
type LeaderConfig struct {
	Client          kubernetes.Interface
	Namespace, Name string
	Identity        string
	// LeaseDuration, RenewDeadline and RetryPeriod default to 15s, 10s
	// and 2s, client-go's usual values.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	Log                                       *slog.Logger
}

// ErrLostLeadership is returned when another replica took the lease while
// this one was leading: the process should exit and start over as a
// candidate, so that nothing it was doing carries on.
var ErrLostLeadership = errors.New("lost leadership")

// Lead runs run only while this process holds the Lease, so two replicas
// never act at once. It returns when ctx ends (nil), when run returns
// (its error; the lease is released), or when leadership is lost
// (ErrLostLeadership).
func Lead(ctx context.Context, cfg LeaderConfig, run func(ctx context.Context) error) error {
	if cfg.LeaseDuration <= 0 {
		cfg.LeaseDuration = 15 * time.Second
	}
	if cfg.RenewDeadline <= 0 {
		cfg.RenewDeadline = 10 * time.Second
	}
	if cfg.RetryPeriod <= 0 {
		cfg.RetryPeriod = 2 * time.Second
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: cfg.Namespace, Name: cfg.Name},
		Client:     cfg.Client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: cfg.Identity},
	}
	parent := ctx
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		mu      sync.Mutex
		runErr  error
		ownEnd  bool
		started = make(chan struct{})
		done    = make(chan struct{})
	)
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, Name: cfg.Name,
		LeaseDuration: cfg.LeaseDuration, RenewDeadline: cfg.RenewDeadline, RetryPeriod: cfg.RetryPeriod,
		ReleaseOnCancel: true,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				defer close(done)
				close(started)
				log.InfoContext(lctx, "leading", "lease", cfg.Namespace+"/"+cfg.Name, "identity", cfg.Identity)
				err := run(lctx)
				if lctx.Err() == nil {
					// run ended on its own: release the lease.
					mu.Lock()
					runErr, ownEnd = err, true
					mu.Unlock()
					cancel()
				}
			},
			OnStoppedLeading: func() {
				log.Info("stopped leading", "lease", cfg.Namespace+"/"+cfg.Name, "identity", cfg.Identity)
			},
			OnNewLeader: func(id string) {
				if id != cfg.Identity {
					log.Info("leader", "identity", id)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	le.Run(ctx)
	select {
	case <-started:
		// Nothing may act after the lease is gone: wait for run to stop.
		<-done
	default:
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if ownEnd {
		return runErr
	}
	if parent.Err() == nil {
		return ErrLostLeadership
	}
	return nil
}
