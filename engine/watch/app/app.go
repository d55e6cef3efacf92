// Package app wires a watch from its options: where the rounds come from
// (a cluster or a replay), where the state lives, who restarts, what is
// published (Events, annotations, metrics, a site) and whether leader
// election guards it. The CLI only binds flags to Options.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/watch"
	"github.com/traindoc/traindoc/engine/watch/kube"
	"github.com/traindoc/traindoc/engine/watch/metrics"
	"github.com/traindoc/traindoc/engine/watch/probe"
	"github.com/traindoc/traindoc/engine/watch/restart"
	"github.com/traindoc/traindoc/site"
)

// ErrUsage marks options that do not go together.
var ErrUsage = errors.New("usage")

// Options are everything `traindoc watch` can be told.
type Options struct {
	// Replay is a folder of saved rounds; empty reads the cluster.
	Replay string
	// Cluster access and what to collect (the collector's options).
	Kubeconfig, Context string
	Collect             collect.Options
	Jobs                []string
	// Probe adds the watch's in-pod checks to the collector's (--exec).
	Probe         bool
	CheckpointDir string
	// KeepSnapshots keeps every live round's snapshot in this folder.
	KeepSnapshots string

	Diagnose diagnose.Options
	Interval time.Duration
	Rounds   int
	// State is a file, or configmap:NAMESPACE/NAME; empty keeps the state
	// in memory only.
	State string

	Policy            watch.Policy
	ResumeArg         string
	ResumeEnv         []string
	RestartCommand    string
	DeletePropagation string
	RestartTimeout    time.Duration

	// Output is text (log lines only) or json (JSON lines on stdout).
	Output    string
	LogLevel  string
	LogFormat string
	// Site rebuilds a static site there after each round, from the last
	// SiteRuns rounds.
	Site     string
	SiteRuns int

	Events      bool
	Annotate    bool
	MetricsAddr string
	LeaderElect bool
	// LeaseNamespace and LeaseName name the Lease; Identity this replica.
	LeaseNamespace, LeaseName, Identity string
	LeaseDuration                       time.Duration

	Version string
	// Clock replaces the wall clock (tests).
	Clock watch.Clock
	// MetricsListening, when set, receives the metrics listener's address.
	MetricsListening func(addr string)
}

// Logger builds the log from --log-level (or TRAINDOC_LOG_LEVEL) and
// --log-format.
func Logger(w io.Writer, level, format string) (*slog.Logger, error) {
	if level == "" {
		level = os.Getenv("TRAINDOC_LOG_LEVEL")
	}
	var lv slog.Level
	if level == "" {
		level = "info"
	}
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("%w: --log-level %q: want debug, info, warn or error", ErrUsage, level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("%w: --log-format %q: want text or json", ErrUsage, format)
}

func (o *Options) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...)
	}
	switch o.Output {
	case "", "text", "json":
	default:
		return bad("-o %q: want text or json", o.Output)
	}
	if o.RestartCommand != "" && (o.ResumeArg != "" || len(o.ResumeEnv) > 0) {
		return bad("--restart-command runs instead of recreating the job: it cannot take --resume-arg or --resume-env (give it {{.Checkpoint}})")
	}
	if o.Policy.MaxRetries < 0 || o.Policy.RetryDelay < 0 {
		return bad("--max-retries and --retry-delay cannot be negative")
	}
	switch o.DeletePropagation {
	case "", "foreground", "background":
	default:
		return bad("--delete-propagation %q: want foreground or background", o.DeletePropagation)
	}
	if o.Replay != "" {
		if o.LeaderElect || o.Annotate || o.KeepSnapshots != "" || o.Probe {
			return bad("--replay reads saved rounds: --leader-elect, --annotate, --exec and --keep-snapshots act on a cluster")
		}
		if strings.HasPrefix(o.State, "configmap:") {
			return bad("--replay keeps its state in a file, not in a ConfigMap")
		}
	} else if o.Interval <= 0 {
		return bad("--interval must be positive")
	}
	return nil
}

// resume parses the resume templates.
func (o *Options) resume() (restart.Resume, *restart.Command, error) {
	var r restart.Resume
	if o.ResumeArg != "" {
		w, err := restart.ParseWords(o.ResumeArg)
		if err != nil {
			return r, nil, fmt.Errorf("%w: --resume-arg: %w", ErrUsage, err)
		}
		r.Args = w
	}
	for _, e := range o.ResumeEnv {
		t, err := restart.ParseEnv(e)
		if err != nil {
			return r, nil, fmt.Errorf("%w: %w", ErrUsage, err)
		}
		r.Env = append(r.Env, t)
	}
	if o.RestartCommand == "" {
		return r, nil, nil
	}
	w, err := restart.ParseWords(o.RestartCommand)
	if err != nil {
		return r, nil, fmt.Errorf("%w: --restart-command: %w", ErrUsage, err)
	}
	return r, &restart.Command{Words: w, Timeout: o.RestartTimeout}, nil
}

// Watch runs the watch until the rounds end (replay), Rounds is reached
// or ctx is cancelled.
func Watch(ctx context.Context, o Options, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	log, err := Logger(stderr, o.LogLevel, o.LogFormat)
	if err != nil {
		return err
	}
	resume, command, err := o.resume()
	if err != nil {
		return err
	}
	if o.Replay != "" {
		// A live watch collects only the jobs named; a replay diagnoses
		// only them.
		o.Diagnose.Jobs = o.Jobs
	}
	d, err := diagnose.New(ctx, o.Diagnose)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	var jsonOut io.Writer
	if o.Output == "json" {
		jsonOut = stdout
	}
	cfg := watch.Config{
		Diagnoser: d, Clock: o.Clock, Rounds: o.Rounds, Policy: o.Policy,
		Output: watch.NewOutput(jsonOut, log), Logger: log,
	}
	if o.Site != "" {
		cfg.After = siteBuilder(d, o.Site, o.SiteRuns, o.Version, log)
	}
	var m *metrics.Metrics
	if o.MetricsAddr != "" {
		m = metrics.New()
		cfg.Metrics = m
		stop, err := serveMetrics(o.MetricsAddr, m, log, o.MetricsListening)
		if err != nil {
			return err
		}
		defer stop()
	}
	if o.Replay != "" {
		return replay(ctx, o, cfg, resume, command, log)
	}
	return live(ctx, o, cfg, resume, command, log)
}

func replay(ctx context.Context, o Options, cfg watch.Config, resume restart.Resume, command *restart.Command, log *slog.Logger) error {
	src, err := watch.NewReplay(o.Replay)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	cfg.Source, cfg.StrictRounds = src, true
	// A replay never touches a cluster: restarts are built and recorded.
	rec := &restart.Recorder{Resume: resume, Command: command}
	cfg.Restarter = rec
	if o.State != "" {
		cfg.Store = watch.FileStore{Path: o.State}
	}
	w, err := watch.New(cfg)
	if err != nil {
		return err
	}
	if err := w.Run(ctx); err != nil {
		return err
	}
	for _, r := range rec.Restarts() {
		attrs := []any{"job", r.Request.Job, "attempt", r.Request.Attempt}
		if r.Argv != nil {
			attrs = append(attrs, "command", strings.Join(r.Argv, " "))
		}
		log.Debug("replay: restart recorded, not carried out", attrs...)
	}
	return nil
}

func live(ctx context.Context, o Options, cfg watch.Config, resume restart.Resume, command *restart.Command, log *slog.Logger) error {
	rc, ctxName, err := collect.BuildConfig(o.Kubeconfig, o.Context)
	if err != nil {
		return fmt.Errorf("%w: no cluster to watch (give --replay DIR, or --kubeconfig and --context): %w", ErrUsage, err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("create clientset: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("create dynamic client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	copts := o.Collect
	copts.Jobs = o.Jobs
	if copts.Namespace == "" && !copts.AllNamespaces {
		copts.Namespace = collect.DefaultNamespace(o.Kubeconfig, o.Context)
	}
	src := &kube.Live{Config: rc, Context: ctxName, Options: copts, Keep: o.KeepSnapshots, Log: log}
	if o.Probe {
		src.Probe = &probe.Options{CheckpointDir: o.CheckpointDir, Timeout: copts.ExecTimeout}
		src.Exec = kube.Exec(rc, cs)
	}
	cfg.Source, cfg.Interval = src, o.Interval
	identity := o.Identity
	if identity == "" {
		identity = kube.Identity()
	}
	if o.Events || o.Annotate {
		cfg.Notifier = eventsOnly{&kube.Notifier{Core: cs, Dynamic: dyn, Mapper: mapper, Annotate: o.Annotate, Instance: identity, Clock: o.Clock}, o.Events}
	}
	if cfg.Policy.Restart && !cfg.Policy.DryRun {
		if command != nil {
			cfg.Restarter = command
		} else {
			prop := metav1.DeletePropagationForeground
			if o.DeletePropagation == "background" {
				prop = metav1.DeletePropagationBackground
			}
			cfg.Restarter = &restart.Recreate{Client: dyn, Mapper: mapper, Resume: resume, Propagation: prop,
				Clock: o.Clock, Timeout: o.RestartTimeout, Log: log}
		}
	}
	store, err := stateStore(o, cs)
	if err != nil {
		return err
	}
	cfg.Store = store
	run := func(ctx context.Context) error {
		w, err := watch.New(cfg)
		if err != nil {
			return err
		}
		return w.Run(ctx)
	}
	if !o.LeaderElect {
		return run(ctx)
	}
	ns := o.LeaseNamespace
	if ns == "" {
		ns = podNamespace(o)
	}
	name := o.LeaseName
	if name == "" {
		name = "traindoc-watch"
	}
	return kube.Lead(ctx, kube.LeaderConfig{
		Client: cs, Namespace: ns, Name: name, Identity: identity, Log: log,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.LeaseDuration * 2 / 3, RetryPeriod: o.LeaseDuration / 5,
	}, run)
}

// eventsOnly leaves out Events when only annotations were asked for.
type eventsOnly struct {
	n      *kube.Notifier
	events bool
}

func (e eventsOnly) Notify(ctx context.Context, no watch.Notice) error {
	no.Event = no.Event && e.events
	return e.n.Notify(ctx, no)
}

func podNamespace(o Options) string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	return collect.DefaultNamespace(o.Kubeconfig, o.Context)
}

func stateStore(o Options, cs kubernetes.Interface) (watch.Store, error) {
	switch {
	case o.State == "":
		return &watch.MemoryStore{}, nil
	case strings.HasPrefix(o.State, "configmap:"):
		ref := strings.TrimPrefix(o.State, "configmap:")
		ns, name, ok := strings.Cut(ref, "/")
		if !ok {
			ns, name = podNamespace(o), ref
		}
		if name == "" {
			return nil, fmt.Errorf("%w: --state %q: want configmap:NAMESPACE/NAME", ErrUsage, o.State)
		}
		return kube.ConfigMapStore{Client: cs, Namespace: ns, Name: name}, nil
	}
	return watch.FileStore{Path: o.State}, nil
}

// siteBuilder rebuilds the static site after each round from the last
// runs, through the site package's public API.
func siteBuilder(d *diagnose.Diagnoser, dir string, keep int, version string, log *slog.Logger) watch.AfterRound {
	if keep <= 0 {
		keep = 48
	}
	var (
		mu   sync.Mutex
		runs []*report.Report
	)
	return func(ctx context.Context, rep *report.Report) error {
		mu.Lock()
		defer mu.Unlock()
		runs = append(runs, rep)
		if len(runs) > keep {
			runs = runs[len(runs)-keep:]
		}
		in := site.Input{Runs: append([]*report.Report(nil), runs...), Rules: d.Engine().Rules(), Categories: d.Engine().Categories(), Exercised: map[string][]string{}, Version: version}
		if err := site.Build(in, dir); err != nil {
			return fmt.Errorf("site: %w", err)
		}
		log.DebugContext(ctx, "site rebuilt", "dir", dir, "runs", len(in.Runs))
		return nil
	}
}

// serveMetrics serves /metrics and /healthz on addr.
func serveMetrics(addr string, m *metrics.Metrics, log *slog.Logger, listening func(string)) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server", "error", err)
		}
	}()
	if listening != nil {
		listening(ln.Addr().String())
	}
	log.Info("serving metrics", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
