// Package collect reads the state of training jobs from a live Kubernetes
// cluster and writes it as a snapshot directory (see
// docs/design/snapshot-layout.md), so that a live diagnosis and an offline
// diagnosis of the same state are the same computation.
//
// The collector is read-only and best effort: whatever the caller's
// credentials cannot read (a forbidden resource, a log that no longer exists)
// becomes a note in snapshot.yaml rather than a failure. Only problems that
// leave nothing meaningful to diagnose (the API server cannot be reached, or
// the job kinds cannot be listed) are returned as errors.
package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

// Options control what is collected and how hard the API server is pressed.
// Start from DefaultOptions: the zero value turns previous logs off.
type Options struct {
	// Namespace to look for jobs in; "default" when empty.
	Namespace string
	// AllNamespaces looks for jobs in every namespace.
	AllNamespaces bool
	// Selector is a label selector the jobs must match.
	Selector string
	// Jobs restricts collection to these jobs, each "name" (in Namespace, or
	// any namespace with AllNamespaces) or "namespace/name".
	Jobs []string

	// LogBytes and LogTail limit each container log (0 = no limit).
	LogBytes int64
	LogTail  int64
	// Timestamps asks for RFC 3339 timestamps on every log line.
	Timestamps bool
	// Previous also fetches the log of the previous instance of restarted containers.
	Previous bool

	// Concurrency bounds parallel log and exec requests.
	Concurrency int
	// QPS and Burst set the client-side rate limit (rest.Config QPS/Burst).
	QPS   float32
	Burst int
	// RequestTimeout bounds each API request; log streams get four times as long.
	RequestTimeout time.Duration

	// Exec runs read-only diagnostics inside running pods (nvidia-smi, ray
	// status, ray job list, checkpoint listing); it needs pods/exec.
	Exec        bool
	ExecTimeout time.Duration

	// PromptConfigMap is "namespace/name" of a ConfigMap whose *.tmpl keys
	// are saved as prompts/<key> for the explanation step.
	PromptConfigMap string

	// Progress receives a one-line progress indicator; nil keeps quiet.
	Progress io.Writer
	// Debug adds notes about things skipped on purpose (kinds the cluster
	// does not serve, logs of containers that never started).
	Debug bool
}

// DefaultOptions returns the options the CLI starts from.
func DefaultOptions() Options {
	return Options{
		LogBytes:       10 << 20,
		Previous:       true,
		Concurrency:    8,
		QPS:            20,
		Burst:          40,
		RequestTimeout: 30 * time.Second,
		ExecTimeout:    20 * time.Second,
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Namespace == "" {
		o.Namespace = metav1.NamespaceDefault
	}
	if o.Concurrency <= 0 {
		o.Concurrency = d.Concurrency
	}
	if o.QPS <= 0 {
		o.QPS = d.QPS
	}
	if o.Burst <= 0 {
		o.Burst = d.Burst
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = d.RequestTimeout
	}
	if o.ExecTimeout <= 0 {
		o.ExecTimeout = d.ExecTimeout
	}
	return o
}

// ObjectRef names one collected object.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Result summarises a collection.
type Result struct {
	Dir         string
	CollectedAt time.Time
	// Jobs are the training jobs found, sorted.
	Jobs []ObjectRef
	// Objects counts the Kubernetes objects written, Pods the pods among them.
	Objects, Pods int
	// Logs and Exec count the log and exec files written.
	Logs, Exec int
	// Notes lists what could not be read, sorted; also in snapshot.yaml.
	Notes []string
}

// SnapshotMeta is the content of snapshot.yaml.
type SnapshotMeta struct {
	CollectedAt   string   `json:"collectedAt"`
	Cluster       string   `json:"cluster,omitempty"`
	Context       string   `json:"context,omitempty"`
	Namespace     string   `json:"namespace,omitempty"`
	AllNamespaces bool     `json:"allNamespaces,omitempty"`
	Notes         []string `json:"notes,omitempty"`
	// Missing is the structured form of what could not be read, so that
	// each job's report can say what it was diagnosed without.
	Missing []snapshot.Missing `json:"missing,omitempty"`
}

// ErrUnreachable marks a collection cut short because the API server stopped
// answering; the snapshot written so far is kept and its notes say what is missing.
var ErrUnreachable = errors.New("API server unreachable")

// Collect writes a snapshot of the selected training jobs into outDir
// (created if needed). On ErrUnreachable or a cancelled context the returned
// Result describes the partial snapshot that was written.
func Collect(ctx context.Context, cfg *rest.Config, contextName string, opts Options, outDir string) (*Result, error) {
	opts = opts.withDefaults()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = opts.QPS, opts.Burst
	// Use JSON for everything; protobuf would save little here and would
	// need a second code path for the dynamic client.
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create clientset: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create dynamic client: %w", err)
	}
	c := newCollector(opts, clients{
		core:      cs,
		dynamic:   dyn,
		discovery: discovery.ToDiscoveryInterfaceWithContext(cs.Discovery()),
		exec:      newRemoteExec(cfg, cs),
	})
	c.cluster, c.context = cfg.Host, contextName
	return c.run(ctx, outDir)
}

// clients bundles the interfaces the collector uses, so tests can pass fakes.
type clients struct {
	core      kubernetes.Interface
	dynamic   dynamic.Interface
	discovery discoverer
	exec      execFunc
}

// discoverer is the part of discovery the collector needs; both the real and
// the fake discovery clients implement it.
type discoverer interface {
	ServerResourcesForGroupVersionWithContext(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error)
}

type collector struct {
	opts             Options
	c                clients
	cluster, context string
	out              string
	now              func() time.Time

	mu          sync.Mutex
	notes       map[string]bool
	missing     map[snapshot.Missing]bool
	unreachable error

	served map[schema.GroupVersion]map[string]bool // GV -> served resources
	// listed holds every object of each known kind in the scanned namespaces,
	// keyed by kind index in knownKinds.
	listed map[int][]*unstructured.Unstructured
	// picked holds what will be written, keyed by file base name.
	picked    map[string][]*unstructured.Unstructured
	seen      map[string]bool // group/kind/ns/name of picked objects
	jobs      []ObjectRef
	collected nameSet // kind/ns/name of everything picked, for events
	// The registry's view of what was picked, for linking: the jobs, the
	// jobs with their workloads, and the pods. listedNames holds
	// kind/ns/name of every listed object, which decides whether a pod's
	// owner is known.
	kJobs, kOwners, kPods []*kinds.Object
	listedNames           nameSet
	pods                  []*corev1.Pod
	logs                  int
	execs                 int
	progress              *progress
}

func newCollector(opts Options, c clients) *collector {
	return &collector{
		opts:    opts.withDefaults(),
		c:       c,
		now:     time.Now,
		notes:   map[string]bool{},
		missing: map[snapshot.Missing]bool{},
		served:  map[schema.GroupVersion]map[string]bool{},
		listed:  map[int][]*unstructured.Unstructured{},
		picked:  map[string][]*unstructured.Unstructured{},
		seen:    map[string]bool{},
	}
}

func (c *collector) run(ctx context.Context, outDir string) (*Result, error) {
	if c.opts.Progress != nil {
		c.progress = &progress{w: c.opts.Progress}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("create snapshot directory: %w", err)
	}
	c.out = outDir
	collectedAt := c.now().UTC().Truncate(time.Second)

	if err := c.discover(ctx); err != nil {
		return nil, err
	}
	if err := c.findJobs(ctx); err != nil {
		return nil, err
	}
	if !c.gone(ctx) {
		c.findPods(ctx)
	}
	if !c.gone(ctx) {
		c.findContext(ctx)
	}
	if !c.gone(ctx) {
		c.findNodes(ctx)
	}
	if !c.gone(ctx) {
		c.findEvents(ctx)
	}
	if !c.gone(ctx) {
		c.findQuotas(ctx)
	}
	if !c.gone(ctx) && c.opts.PromptConfigMap != "" {
		c.savePrompts(ctx)
	}
	objects, err := c.writeObjects()
	if err != nil {
		return nil, err
	}
	if !c.gone(ctx) {
		c.fetchLogsAndExec(ctx)
	}
	c.progress.done()

	res := &Result{
		Dir:         outDir,
		CollectedAt: collectedAt,
		Jobs:        c.jobs,
		Objects:     objects,
		Pods:        len(c.pods),
		Logs:        c.logs,
		Exec:        c.execs,
	}
	var runErr error
	switch {
	case c.unreachable != nil:
		c.note("collection incomplete, %s: %s", ErrUnreachable, reason(c.unreachable))
		c.miss(snapshot.Missing{What: "cluster", Reason: "collection incomplete, " + ErrUnreachable.Error() + ": " + reason(c.unreachable)})
		runErr = fmt.Errorf("collection incomplete: %w: %w", ErrUnreachable, c.unreachable)
	case ctx.Err() != nil:
		c.note("collection incomplete: %s", reason(ctx.Err()))
		c.miss(snapshot.Missing{What: "cluster", Reason: "collection incomplete: " + reason(ctx.Err())})
		runErr = fmt.Errorf("collection incomplete: %w", ctx.Err())
	}
	for n := range c.notes {
		res.Notes = append(res.Notes, n)
	}
	sort.Strings(res.Notes)

	meta := SnapshotMeta{
		CollectedAt: collectedAt.Format(time.RFC3339),
		Cluster:     c.cluster,
		Context:     c.context,
		Notes:       res.Notes,
		Missing:     sortedMissing(c.missing),
	}
	if c.opts.AllNamespaces {
		meta.AllNamespaces = true
	} else {
		meta.Namespace = c.opts.Namespace
	}
	data, err := yaml.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("marshal snapshot.yaml: %w", err)
	}
	if err := writeFile(outDir+string(os.PathSeparator)+"snapshot.yaml", data); err != nil {
		return nil, err
	}
	return res, runErr
}
