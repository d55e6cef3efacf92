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
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/engine/kinds"
	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/snapshot"
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

// note records something that could not be read. Notes are de-duplicated
// and sorted, so the same cluster state gives the same snapshot.yaml.
func (c *collector) note(format string, args ...any) {
	// Notes quote API errors, which may quote a URL with its credentials.
	n := redact.String(fmt.Sprintf(format, args...))
	c.mu.Lock()
	c.notes[n] = true
	c.mu.Unlock()
}

// miss records, besides the note, what could not be read in structured
// form (snapshot.yaml's missing list).
func (c *collector) miss(m snapshot.Missing) {
	m.Reason = redact.String(m.Reason)
	c.mu.Lock()
	c.missing[m] = true
	c.mu.Unlock()
}

// failedMiss is failed for a read whose loss a job's report names: the
// note, and the structured entry with the reason.
func (c *collector) failedMiss(ctx context.Context, err error, m snapshot.Missing, format string, args ...any) bool {
	gone := c.failed(ctx, err, format, args...)
	if !gone || isTransport(err) {
		m.Reason = reason(err)
		c.miss(m)
	}
	return gone
}

func (c *collector) debugf(format string, args ...any) {
	if c.opts.Debug {
		c.note("debug: "+format, args...)
	}
}

// reason condenses an API error into the short form used in notes.
func reason(err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsUnauthorized(err):
		return "unauthorized"
	case apierrors.IsNotFound(err):
		return "not found"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}

// isTransport reports whether err came from the connection rather than from
// the API server (which always answers with a Status). A request that ran
// out of its own client-side time is not: a slow answer to one request (a
// long log, an overloaded kubelet) says nothing about the next one, so it
// is recorded as timed out and collection goes on.
func isTransport(err error) bool {
	var st apierrors.APIStatus
	return err != nil && !errors.As(err, &st) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// failed records a failed read as a note. It returns true when the API
// server is gone and the caller should stop issuing requests.
func (c *collector) failed(ctx context.Context, err error, format string, args ...any) bool {
	if ctx.Err() != nil {
		return true
	}
	what := fmt.Sprintf(format, args...)
	if isTransport(err) {
		c.mu.Lock()
		if c.unreachable == nil {
			c.unreachable = fmt.Errorf("%s: %w", what, err)
		}
		c.mu.Unlock()
		return true
	}
	c.note("%s: %s", what, reason(err))
	return false
}

func (c *collector) gone(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unreachable != nil
}

// reqCtx bounds one API request so that a server that stops answering
// (rather than closing connections) cannot hang the collection.
func (c *collector) reqCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.opts.RequestTimeout)
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

// discover finds which of the known kinds the cluster serves. A kind that is
// not served is simply not collected: most clusters run one or two operators.
func (c *collector) discover(ctx context.Context) error {
	for _, k := range knownKinds {
		gv := k.GVR.GroupVersion()
		if _, done := c.served[gv]; done {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("discover API resources: %w", err)
		}
		c.served[gv] = map[string]bool{}
		rctx, cancel := c.reqCtx(ctx)
		list, err := c.c.discovery.ServerResourcesForGroupVersionWithContext(rctx, gv.String())
		cancel()
		switch {
		case err == nil:
			for _, r := range list.APIResources {
				c.served[gv][r.Name] = true
			}
		case apierrors.IsNotFound(err):
			// Not installed: skipped silently.
		case isTransport(err):
			return fmt.Errorf("discover API resources (%s): %w: %w", gv, ErrUnreachable, err)
		default:
			c.note("API group %s not discoverable: %s", gv, reason(err))
		}
	}
	for _, k := range knownKinds {
		if !c.served[k.GVR.GroupVersion()][k.GVR.Resource] {
			c.debugf("%s (%s) not served by the cluster", k.Kind, k.GVR.GroupVersion())
		}
	}
	return nil
}

// scanNamespaces returns the namespaces to list in ("" means all).
func (c *collector) scanNamespaces() []string {
	if c.opts.AllNamespaces {
		return []string{metav1.NamespaceAll}
	}
	set := map[string]bool{c.opts.Namespace: true}
	for _, j := range c.opts.Jobs {
		if ns, _, ok := strings.Cut(j, "/"); ok && ns != "" {
			set[ns] = true
		}
	}
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// wanted reports whether a job named in Options.Jobs (or all, if none) matches.
func (c *collector) wanted(ns, name string) (bool, string) {
	if len(c.opts.Jobs) == 0 {
		return true, ""
	}
	for _, j := range c.opts.Jobs {
		if jns, jname, ok := strings.Cut(j, "/"); ok {
			if jns == ns && jname == name {
				return true, j
			}
			continue
		}
		if j == name && (c.opts.AllNamespaces || ns == c.opts.Namespace) {
			return true, j
		}
	}
	return false, ""
}

func objKey(group, kind, ns, name string) string { return group + "/" + kind + "/" + ns + "/" + name }

// pick adds an object to the set that will be written, once.
func (c *collector) pick(file string, o *unstructured.Unstructured) bool {
	gvk := o.GroupVersionKind()
	key := objKey(gvk.Group, gvk.Kind, o.GetNamespace(), o.GetName())
	if c.seen[key] {
		return false
	}
	c.seen[key] = true
	c.picked[file] = append(c.picked[file], o)
	return true
}

func fileFor(r schema.GroupVersionResource) string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

func (c *collector) listKind(ctx context.Context, i int) {
	k := knownKinds[i]
	if !c.served[k.GVR.GroupVersion()][k.GVR.Resource] {
		return
	}
	for _, ns := range c.scanNamespaces() {
		if c.gone(ctx) {
			return
		}
		items, err := c.listDynamic(ctx, k.GVR, ns)
		if err != nil {
			if c.failedMiss(ctx, err, snapshot.Missing{What: "jobs", Namespace: ns}, "%s not readable in %s", fileFor(k.GVR), nsLabel(ns)) {
				return
			}
			continue
		}
		for _, it := range items {
			cleanObject(it, k.GVR.GroupVersion().String(), k.Kind)
		}
		c.listed[i] = append(c.listed[i], items...)
	}
}

func nsLabel(ns string) string {
	if ns == "" {
		return "all namespaces"
	}
	return ns
}

// listDynamic lists all objects of a resource, page by page.
func (c *collector) listDynamic(ctx context.Context, r schema.GroupVersionResource, ns string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.c.dynamic.Resource(r).Namespace(ns).List(ctx, opts)
	}
	err := c.eachItem(ctx, list, func(o runtime.Object) error {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("list %s: unexpected %T", r.Resource, o)
		}
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

type nameSet map[string]bool // "kind/ns/name"

func (s nameSet) has(kind, ns, name string) bool { return s[kind+"/"+ns+"/"+name] }
func (s nameSet) add(kind, ns, name string)      { s[kind+"/"+ns+"/"+name] = true }

// findJobs lists the job kinds, picks the jobs asked for, and then the
// workloads beneath them (JobSets, batch Jobs, RayClusters), as the kind
// registry links them.
func (c *collector) findJobs(ctx context.Context) error {
	var sel labels.Selector = labels.Everything()
	if c.opts.Selector != "" {
		s, err := labels.Parse(c.opts.Selector)
		if err != nil {
			return fmt.Errorf("parse selector %q: %w", c.opts.Selector, err)
		}
		sel = s
	}
	for i := range knownKinds {
		if r := knownKinds[i].Role; r == kinds.Job || r == kinds.Workload {
			c.listKind(ctx, i)
		}
	}
	if c.unreachable != nil {
		return fmt.Errorf("list jobs: %w: %w", ErrUnreachable, c.unreachable)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}

	// Every listed object of a job kind may claim a Standalone workload
	// (a RayJob its RayCluster), selected or not.
	c.listedNames = nameSet{}
	var listedJobs []*kinds.Object
	views := map[*unstructured.Unstructured]*kinds.Object{}
	for i, k := range knownKinds {
		for _, o := range c.listed[i] {
			views[o] = kobj(o)
			c.listedNames.add(k.Kind, o.GetNamespace(), o.GetName())
			if k.Role == kinds.Job {
				listedJobs = append(listedJobs, views[o])
			}
		}
	}

	set := nameSet{}
	matched := map[string]bool{}
	for i, k := range knownKinds {
		if k.Role != kinds.Job && k.Role != kinds.Workload {
			continue
		}
		for _, o := range c.listed[i] {
			if !sel.Matches(labels.Set(o.GetLabels())) {
				continue
			}
			ok, entry := c.wanted(o.GetNamespace(), o.GetName())
			if !ok {
				continue
			}
			// A workload named explicitly is diagnosed as a job.
			if len(c.opts.Jobs) == 0 && !kinds.IsJob(views[o], listedJobs) {
				continue
			}
			if c.pick(fileFor(k.GVR), o) {
				set.add(k.Kind, o.GetNamespace(), o.GetName())
				c.kJobs = append(c.kJobs, views[o])
				c.jobs = append(c.jobs, ObjectRef{Kind: k.Kind, Namespace: o.GetNamespace(), Name: o.GetName()})
				matched[entry] = true
			}
		}
	}
	for _, j := range c.opts.Jobs {
		if !matched[j] {
			c.note("job %s not found", j)
		}
	}

	// Workloads: owned by what was picked, or linked to it the way the
	// operators name them when they set no owner references.
	var candidates []*kinds.Object
	byView := map[*kinds.Object]*unstructured.Unstructured{}
	file := map[*kinds.Object]string{}
	for i, k := range knownKinds {
		if k.Role != kinds.Workload {
			continue
		}
		for _, o := range c.listed[i] {
			v := views[o]
			candidates = append(candidates, v)
			byView[v], file[v] = o, fileFor(k.GVR)
		}
	}
	c.kOwners = append([]*kinds.Object(nil), c.kJobs...)
	for _, w := range kinds.Workloads(c.kJobs, candidates) {
		if c.pick(file[w], byView[w]) {
			set.add(w.Kind, w.Namespace, w.Name)
			c.kOwners = append(c.kOwners, w)
		}
	}
	c.collected = set
	sort.Slice(c.jobs, func(i, j int) bool { return c.jobs[i].String() < c.jobs[j].String() })
	return nil
}

// jobNamespaces returns the namespaces that hold a collected object.
func (c *collector) jobNamespaces() []string {
	set := map[string]bool{}
	for _, objs := range c.picked {
		for _, o := range objs {
			if o.GetNamespace() != "" {
				set[o.GetNamespace()] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// toUnstructured converts a typed object and stamps its kind and apiVersion,
// which typed clients leave empty.
func toUnstructured(obj runtime.Object, apiVersion, kind string) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", kind, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	cleanObject(u, apiVersion, kind)
	return u, nil
}

// podLinked reports whether a pod belongs to a collected job or workload,
// by owner reference or by one of the labels operators put on their pods.
// Labels count only when none of the pod's owners was listed: a pod owned
// by something else (an unrelated batch Job) is not claimed by its labels.
func (c *collector) podLinked(p *corev1.Pod) bool {
	byLabel := true
	for _, r := range p.OwnerReferences {
		if c.listedNames.has(r.Kind, p.Namespace, r.Name) {
			byLabel = false
		}
	}
	return kinds.PodOf(podView(p), c.kOwners, byLabel)
}

func podView(p *corev1.Pod) *kinds.Object {
	return &kinds.Object{
		Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: string(p.UID),
		Labels: p.Labels, Annotations: p.Annotations, Owners: owners(p.OwnerReferences),
	}
}

func (c *collector) findPods(ctx context.Context) {
	for _, ns := range c.jobNamespaces() {
		list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.c.core.CoreV1().Pods(ns).List(ctx, opts)
		}
		err := c.eachItem(ctx, list, func(o runtime.Object) error {
			if p, ok := o.(*corev1.Pod); ok {
				c.pickPod(p)
			}
			return nil
		})
		if err != nil && c.failedMiss(ctx, err, snapshot.Missing{What: "pods", Namespace: ns}, "pods not readable in %s", ns) {
			return
		}
	}
	sort.Slice(c.pods, func(i, j int) bool {
		if c.pods[i].Namespace != c.pods[j].Namespace {
			return c.pods[i].Namespace < c.pods[j].Namespace
		}
		return c.pods[i].Name < c.pods[j].Name
	})
}

// pickPod adds a pod of a collected job.
func (c *collector) pickPod(p *corev1.Pod) {
	if !c.podLinked(p) {
		return
	}
	u, err := toUnstructured(p, "v1", "Pod")
	if err != nil {
		c.note("pod %s/%s: %v", p.Namespace, p.Name, err)
		return
	}
	if c.pick("pods", u) {
		c.pods = append(c.pods, p)
		c.kPods = append(c.kPods, podView(p))
		c.collected.add("Pod", p.Namespace, p.Name)
	}
}

// findContext picks the gates (pod groups, Kueue workloads) that refer to
// collected jobs, their workloads or their pods, then the queues these name.
func (c *collector) findContext(ctx context.Context) {
	gates := c.findGates(ctx)
	if !c.gone(ctx) {
		c.findQueues(ctx, gates)
	}
}

// findGates picks the gates and returns the registry's view of them.
func (c *collector) findGates(ctx context.Context) []*kinds.Object {
	var gates []*kinds.Object
	for _, k := range knownKinds {
		if k.Role != kinds.Gate || !c.served[k.GVR.GroupVersion()][k.GVR.Resource] {
			continue
		}
		for _, ns := range c.jobNamespaces() {
			if c.gone(ctx) {
				return gates
			}
			items, err := c.listDynamic(ctx, k.GVR, ns)
			if err != nil {
				if c.failedMiss(ctx, err, snapshot.Missing{What: strings.TrimSuffix(fileFor(k.GVR), ".yaml"), Namespace: ns}, "%s not readable in %s", fileFor(k.GVR), ns) {
					return gates
				}
				continue
			}
			for _, o := range items {
				cleanObject(o, k.GVR.GroupVersion().String(), k.Kind)
				v := kobj(o)
				if kinds.GateOf(v, c.kJobs, c.kOwners, c.kPods) && c.pick(fileFor(k.GVR), o) {
					c.collected.add(k.Kind, ns, o.GetName())
					gates = append(gates, v)
				}
			}
		}
	}
	return gates
}

// findQueues picks the queues that the collected jobs, workloads, gates and
// pods name, and the ClusterQueues of the LocalQueues among them. A
// cluster-scoped queue kind is listed once; a forbidden list is a note.
func (c *collector) findQueues(ctx context.Context, gates []*kinds.Object) {
	refs := append(append(append([]*kinds.Object(nil), c.kOwners...), gates...), c.kPods...)
	var candidates []*kinds.Object
	byView := map[*kinds.Object]*unstructured.Unstructured{}
	file := map[*kinds.Object]string{}
	for _, k := range knownKinds {
		if k.Role != kinds.Queue || !c.served[k.GVR.GroupVersion()][k.GVR.Resource] {
			continue
		}
		namespaces := c.jobNamespaces()
		if k.ClusterScoped {
			namespaces = []string{metav1.NamespaceAll}
		}
		for _, ns := range namespaces {
			if c.gone(ctx) {
				return
			}
			items, err := c.listDynamic(ctx, k.GVR, ns)
			if err != nil {
				if c.failed(ctx, err, "%s not readable in %s", fileFor(k.GVR), nsLabel(ns)) {
					return
				}
				continue
			}
			for _, o := range items {
				cleanObject(o, k.GVR.GroupVersion().String(), k.Kind)
				v := kobj(o)
				candidates = append(candidates, v)
				byView[v], file[v] = o, fileFor(k.GVR)
			}
		}
	}
	for _, q := range kinds.QueuesOf(refs, candidates) {
		if c.pick(file[q], byView[q]) {
			c.collected.add(q.Kind, q.Namespace, q.Name)
		}
	}
}

// findEvents keeps the core/v1 events whose involved object was collected.
// Node events are recorded in the default namespace, so it is read too
// when nodes were collected.
func (c *collector) findEvents(ctx context.Context) {
	namespaces := c.jobNamespaces()
	if len(c.picked["nodes"]) > 0 && !slices.Contains(namespaces, metav1.NamespaceDefault) {
		namespaces = append(namespaces, metav1.NamespaceDefault)
	}
	for _, ns := range namespaces {
		list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.c.core.CoreV1().Events(ns).List(ctx, opts)
		}
		err := c.eachItem(ctx, list, func(o runtime.Object) error {
			if e, ok := o.(*corev1.Event); ok {
				c.pickEvent(e)
			}
			return nil
		})
		if err != nil && c.failedMiss(ctx, err, snapshot.Missing{What: "events", Namespace: ns}, "events not readable in %s", ns) {
			return
		}
	}
}

// pickEvent adds an event about a collected object.
func (c *collector) pickEvent(e *corev1.Event) {
	ref := e.InvolvedObject
	refNS := ref.Namespace
	if refNS == "" && ref.Kind != "Node" {
		refNS = e.Namespace
	}
	if ref.Kind == "Node" {
		refNS = "" // cluster-scoped, whatever the event says
	}
	if !c.collected.has(ref.Kind, refNS, ref.Name) {
		return
	}
	u, err := toUnstructured(e, "v1", "Event")
	if err != nil {
		c.note("event %s/%s: %v", e.Namespace, e.Name, err)
		return
	}
	c.pick("events", u)
}

// maxNodes bounds the cluster-wide node listing done for unscheduled pods.
const maxNodes = 5000

// findNodes reads the nodes the collected pods run on, one by one: the
// caller may be allowed to get nodes without being allowed to list them all.
// When a pod is not scheduled (or a job has no pods yet), every node is
// context for the scheduling verdict, so all nodes are listed instead.
func (c *collector) findNodes(ctx context.Context) {
	names := map[string]bool{}
	unscheduled := len(c.pods) == 0 && len(c.jobs) > 0
	for _, p := range c.pods {
		if p.Spec.NodeName != "" {
			names[p.Spec.NodeName] = true
		} else if p.Status.Phase == corev1.PodPending || p.Status.Phase == "" {
			unscheduled = true
		}
	}
	if unscheduled && c.listNodes(ctx) {
		return
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		rctx, cancel := c.reqCtx(ctx)
		node, err := c.c.core.CoreV1().Nodes().Get(rctx, n, metav1.GetOptions{})
		cancel()
		if err != nil {
			if apierrors.IsForbidden(err) {
				c.note("nodes not readable: forbidden")
				c.miss(snapshot.Missing{What: "nodes", Reason: "forbidden"})
				return
			}
			if apierrors.IsNotFound(err) {
				// Deleted since (scaled down, say): nothing was withheld.
				c.debugf("node %s not found", n)
				continue
			}
			if c.failedMiss(ctx, err, snapshot.Missing{What: "nodes"}, "node %s not readable", n) {
				return
			}
			continue
		}
		c.pickNode(node)
	}
}

// listNodes lists all nodes; it returns false when that is not allowed, so
// the caller falls back to reading the pods' nodes one by one.
func (c *collector) listNodes(ctx context.Context) bool {
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.c.core.CoreV1().Nodes().List(ctx, opts)
	}
	count := 0
	err := c.eachItem(ctx, list, func(o runtime.Object) error {
		if count >= maxNodes {
			return errEnough
		}
		if n, ok := o.(*corev1.Node); ok {
			c.pickNode(n)
			count++
		}
		return nil
	})
	switch {
	case errors.Is(err, errEnough):
		c.note("nodes: only the first %d listed", count)
	case apierrors.IsForbidden(err):
		c.note("nodes not listable: forbidden")
		c.miss(snapshot.Missing{What: "nodes", Reason: "forbidden"})
		return false
	case err != nil:
		c.failed(ctx, err, "nodes not listable")
	}
	return true
}

// errEnough stops a listing that has given all that is wanted.
var errEnough = errors.New("enough listed")

func (c *collector) pickNode(node *corev1.Node) {
	// The image list is long and says nothing about a training failure.
	node.Status.Images = nil
	u, err := toUnstructured(node, "v1", "Node")
	if err != nil {
		c.note("node %s: %v", node.Name, err)
		return
	}
	if c.pick("nodes", u) {
		c.collected.add("Node", "", node.Name)
	}
}

func (c *collector) findQuotas(ctx context.Context) {
	for _, ns := range c.jobNamespaces() {
		list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.c.core.CoreV1().ResourceQuotas(ns).List(ctx, opts)
		}
		err := c.eachItem(ctx, list, func(o runtime.Object) error {
			q, ok := o.(*corev1.ResourceQuota)
			if !ok {
				return nil
			}
			u, err := toUnstructured(q, "v1", "ResourceQuota")
			if err != nil {
				c.note("resourcequota %s/%s: %v", ns, q.Name, err)
				return nil
			}
			c.pick("resourcequotas", u)
			return nil
		})
		if err != nil && c.failedMiss(ctx, err, snapshot.Missing{What: "quotas", Namespace: ns}, "resourcequotas not readable in %s", ns) {
			return
		}
	}
}

// savePrompts copies the *.tmpl keys of the prompt ConfigMap to prompts/.
func (c *collector) savePrompts(ctx context.Context) {
	ns, name, ok := strings.Cut(c.opts.PromptConfigMap, "/")
	if !ok {
		ns, name = c.opts.Namespace, c.opts.PromptConfigMap
	}
	rctx, cancel := c.reqCtx(ctx)
	cm, err := c.c.core.CoreV1().ConfigMaps(ns).Get(rctx, name, metav1.GetOptions{})
	cancel()
	if err != nil {
		c.failed(ctx, err, "prompt configmap %s/%s not readable", ns, name)
		return
	}
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		if strings.HasSuffix(k, ".tmpl") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, err := safeJoin(c.out, "prompts", k)
		if err != nil {
			c.note("prompt %s skipped: %v", k, err)
			continue
		}
		if err := writeFile(p, []byte(cm.Data[k])); err != nil {
			c.note("prompt %s not written: %v", k, err)
		}
	}
}

// writeObjects writes one List file per resource and returns the object count.
func (c *collector) writeObjects() (int, error) {
	files := make([]string, 0, len(c.picked))
	for f := range c.picked {
		files = append(files, f)
	}
	sort.Strings(files)
	n := 0
	for _, f := range files {
		objs := c.picked[f]
		sortObjects(objs)
		data, err := marshalList(objs)
		if err != nil {
			return n, fmt.Errorf("write %s: %w", f, err)
		}
		p, err := safeJoin(c.out, f+".yaml")
		if err != nil {
			return n, err
		}
		if err := writeFile(p, data); err != nil {
			return n, err
		}
		n += len(objs)
	}
	return n, nil
}

func sortedMissing(set map[snapshot.Missing]bool) []snapshot.Missing {
	out := make([]snapshot.Missing, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		return x.What+"\x00"+x.Namespace+"\x00"+x.Pod+"\x00"+x.Container+"\x00"+x.Reason <
			y.What+"\x00"+y.Namespace+"\x00"+y.Pod+"\x00"+y.Container+"\x00"+y.Reason
	})
	return out
}
