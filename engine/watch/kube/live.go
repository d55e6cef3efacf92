// Package kube connects a watch to a live cluster: the rounds it collects
// (Live), the in-pod exec it probes through, the Events and annotations
// it writes (Notifier), the state it keeps in a ConfigMap
// (ConfigMapStore) and the leader election that lets two replicas run
// without acting twice (Lead).
package kube

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/engine/watch"
	"github.com/traindoc/traindoc/engine/watch/probe"
	"github.com/traindoc/traindoc/internal/adapt"
)

// Exec runs commands in containers through pods/exec: WebSocket first,
// SPDY for older API servers, as kubectl does.
func Exec(cfg *rest.Config, cs kubernetes.Interface) probe.ExecFunc {
	return func(ctx context.Context, ns, pod, container string, command []string, stdout, stderr io.Writer) error {
		req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
			VersionedParams(&corev1.PodExecOptions{Container: container, Command: command, Stdout: true, Stderr: true}, scheme.ParameterCodec)
		ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", req.URL().String())
		if err != nil {
			return fmt.Errorf("websocket executor: %w", err)
		}
		spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
		if err != nil {
			return fmt.Errorf("spdy executor: %w", err)
		}
		ex, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
		if err != nil {
			return fmt.Errorf("exec executor: %w", err)
		}
		return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: stdout, Stderr: stderr})
	}
}

// Live is a watch.Source that takes a snapshot of the cluster each round
// with the collector, then runs the watch's own in-pod checks.
type Live struct {
	Config  *rest.Config
	Context string
	Options collect.Options
	// Probe, when set, runs the in-pod checks through Exec.
	Probe *probe.Options
	Exec  probe.ExecFunc
	// Keep is a folder that keeps every round's snapshot (as
	// <collectedAt>/); empty removes them after the round.
	Keep string
	Log  *slog.Logger
}

// Next collects one round.
func (l *Live) Next(ctx context.Context) (*watch.Round, error) {
	dir, cleanup, err := l.dir()
	if err != nil {
		return nil, err
	}
	res, err := collect.Collect(ctx, l.Config, l.Context, l.Options, dir)
	if err != nil {
		// A partial snapshot would read as pods gone missing: skip the
		// round rather than act on it.
		cleanup()
		return nil, fmt.Errorf("collect: %w", err)
	}
	if l.Probe != nil && l.Exec != nil {
		for _, n := range l.probe(ctx, dir) {
			l.log().WarnContext(ctx, "in-pod check", "note", n)
		}
	}
	name := res.CollectedAt.UTC().Format("20060102T150405Z")
	if l.Keep != "" {
		final := filepath.Join(l.Keep, name)
		if err := os.Rename(dir, final); err == nil {
			dir = final
		}
	}
	return &watch.Round{Dir: dir, Name: name, Cleanup: cleanup}, nil
}

func (l *Live) dir() (string, func(), error) {
	parent := l.Keep
	if parent != "" {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return "", nil, fmt.Errorf("keep snapshots: %w", err)
		}
	}
	dir, err := os.MkdirTemp(parent, ".round-")
	if err != nil {
		return "", nil, fmt.Errorf("snapshot directory: %w", err)
	}
	if l.Keep != "" {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

func (l *Live) probe(ctx context.Context, dir string) []string {
	snap, err := snapshot.Read(dir)
	if err != nil {
		return []string{err.Error()}
	}
	tasks := probe.Plan(dir, adapt.Build(snap), *l.Probe)
	return probe.Run(ctx, dir, l.Exec, tasks, *l.Probe)
}

func (l *Live) log() *slog.Logger {
	if l.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Log
}

// Identity names this process for leader election and Events: the pod's
// name in a cluster, else the host name and process id.
func Identity() string {
	if n := os.Getenv("POD_NAME"); n != "" {
		return n
	}
	h, _ := os.Hostname()
	return strings.TrimSpace(fmt.Sprintf("%s-%d", h, os.Getpid()))
}

// now is the wall clock, replaced in tests.
var now = time.Now
