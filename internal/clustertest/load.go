package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/traindoc/traindoc/engine/snapshot"
)

// ReadObjects returns every Kubernetes object in a snapshot directory, in
// file order: single objects, multi-document YAML and Lists, in .yaml, .yml
// and .json files anywhere except logs/, exec/ and prompts/. Documents
// without apiVersion and kind (snapshot.yaml, expected.yaml) are skipped, and
// so is the rest of a file that does not parse; such files are returned as
// warnings, as the snapshot reader reports them.
func ReadObjects(dir string) ([]*unstructured.Unstructured, []string, error) {
	var out []*unstructured.Unstructured
	var warnings []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			switch rel {
			case "logs", "exec", "prompts":
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		dec := utilyaml.NewYAMLOrJSONDecoder(bufio.NewReader(f), 4096)
		for {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				warnings = append(warnings, fmt.Sprintf("parse %s: %v", rel, err))
				return nil
			}
			out = append(out, flatten(m)...)
		}
	})
	return out, warnings, err
}

// flatten expands Lists and drops documents that are not objects.
func flatten(m map[string]any) []*unstructured.Unstructured {
	if m == nil {
		return nil
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetAPIVersion() == "" || u.GetKind() == "" {
		return nil
	}
	if items, ok := m["items"].([]any); ok && strings.HasSuffix(u.GetKind(), "List") {
		var out []*unstructured.Unstructured
		for _, it := range items {
			if im, ok := it.(map[string]any); ok {
				out = append(out, flatten(im)...)
			}
		}
		return out
	}
	return []*unstructured.Unstructured{u}
}

// ApplyYAML creates every object in a YAML stream (objects that already
// exist are left alone) and returns them as created.
func ApplyYAML(ctx context.Context, cfg *rest.Config, data []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("parse: %w", err)
		}
		objs = append(objs, flatten(m)...)
	}
	l, err := newLoader(cfg)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		created, err := l.create(ctx, o, "default")
		if err != nil {
			return out, err
		}
		out = append(out, created)
	}
	return out, nil
}

// InstallCRDs creates the CustomResourceDefinitions in every YAML file of dir
// and waits until the API server serves all of them.
func InstallCRDs(ctx context.Context, cfg *rest.Config, dir string) error {
	objs, warnings, err := ReadObjects(dir)
	if err != nil {
		return err
	}
	if len(warnings) > 0 {
		return fmt.Errorf("read CRDs: %s", strings.Join(warnings, "; "))
	}
	l, err := newLoader(cfg)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if _, err := l.create(ctx, o, ""); err != nil {
			return err
		}
	}
	for _, o := range objs {
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(o.Object, "spec", "names", "plural")
		versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
		for _, v := range versions {
			name, _ := v.(map[string]any)["name"].(string)
			if err := WaitForResources(ctx, cfg, group+"/"+name, plural); err != nil {
				return err
			}
		}
	}
	return nil
}

// WaitForResources polls discovery until groupVersion serves all resources.
func WaitForResources(ctx context.Context, cfg *rest.Config, groupVersion string, resources ...string) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		list, err := dc.ServerResourcesForGroupVersion(groupVersion)
		if err == nil {
			have := map[string]bool{}
			for _, r := range list.APIResources {
				have[r.Name] = true
			}
			missing := false
			for _, r := range resources {
				missing = missing || !have[r]
			}
			if !missing {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %v not served: %w", groupVersion, resources, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// LoadOptions configure LoadIntoCluster.
type LoadOptions struct {
	// Namespace for namespaced objects that do not name one ("default").
	Namespace string
	// KubeletPort is kwok's port. Nodes are given the InternalIP 127.0.0.1
	// and this kubelet port so the API server can proxy log requests to kwok.
	// Zero leaves nodes as they are (and logs unserved).
	KubeletPort int
	// LogDir receives the CRI-format log files kwok serves; required when the
	// snapshot has logs.
	LogDir string
	// StripTimestamps moves a leading RFC 3339 timestamp (as written by
	// `kubectl logs --timestamps`) into the CRI record, so that collecting
	// with timestamps reproduces the lines. Without it each line is kept
	// verbatim, so that collecting without timestamps reproduces the file.
	StripTimestamps bool
}

// Loaded reports what LoadIntoCluster did.
type Loaded struct {
	// Objects are "Kind/namespace/name" of the objects created, sorted.
	Objects []string
	// Namespaces holds the namespaces the objects went into, sorted.
	Namespaces []string
	// Logs counts the container log files made available through kwok.
	Logs int
	// PlaceholderNodes were created for pods with logs whose node is not in
	// the snapshot: the API server needs a node to proxy logs through.
	PlaceholderNodes []string
	// Skipped lists objects whose kind the cluster does not serve, and files
	// that do not parse.
	Skipped []string
	// Repaired lists changes made because the API server would reject the
	// snapshot's version of an object (an invalid label value, say).
	Repaired []string
}

// PlaceholderLabel marks nodes created only to serve logs.
const PlaceholderLabel = "traindoc.dev/placeholder-node"

// LoadIntoCluster applies every object of a snapshot directory to a cluster:
// namespaces first, then nodes, the objects, pods, events, and quotas last
// (so quota admission cannot reject the pods). Status is written through the
// status subresource, because create ignores it. Container logs become kwok
// Logs objects pointing at CRI-format copies in opts.LogDir.
//
// Server-assigned fields (uid, resourceVersion, creationTimestamp) cannot be
// preserved; everything else round-trips.
func LoadIntoCluster(ctx context.Context, cfg *rest.Config, dir string, opts LoadOptions) (*Loaded, error) {
	if opts.Namespace == "" {
		opts.Namespace = metav1.NamespaceDefault
	}
	objs, warnings, err := ReadObjects(dir)
	if err != nil {
		return nil, err
	}
	l, err := newLoader(cfg)
	if err != nil {
		return nil, err
	}
	res := &Loaded{Skipped: warnings}

	type item struct {
		obj     *unstructured.Unstructured
		mapping *meta.RESTMapping
	}
	var items []item
	nsSet := map[string]bool{}
	nodes := map[string]bool{}
	prio := map[string]int64{}
	for _, o := range objs {
		m, err := l.mapping(o)
		if err != nil {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s %s: %v", o.GetKind(), o.GetName(), err))
			continue
		}
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			if o.GetNamespace() == "" {
				o.SetNamespace(opts.Namespace)
			}
			nsSet[o.GetNamespace()] = true
		}
		switch o.GetKind() {
		case "Node":
			nodes[o.GetName()] = true
		case "Pod":
			if pc, _, _ := unstructured.NestedString(o.Object, "spec", "priorityClassName"); pc != "" {
				p, _, _ := unstructured.NestedInt64(o.Object, "spec", "priority")
				prio[pc] = p
			}
		case "Namespace":
			nsSet[o.GetName()] = true
		}
		items = append(items, item{o, m})
	}
	sort.SliceStable(items, func(i, j int) bool { return loadOrder(items[i].obj) < loadOrder(items[j].obj) })

	for _, ns := range slices.Sorted(maps.Keys(nsSet)) {
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if _, err := l.create(ctx, o, ""); err != nil {
			return res, err
		}
	}
	res.Namespaces = slices.Sorted(maps.Keys(nsSet))
	// The Priority admission plugin rejects pods naming an unknown class.
	for _, pc := range slices.Sorted(maps.Keys(prio)) {
		if strings.HasPrefix(pc, "system-") {
			continue
		}
		o := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
			"metadata": map[string]any{"name": pc}, "value": prio[pc],
		}}
		if _, err := l.create(ctx, o, ""); err != nil {
			return res, err
		}
	}

	logsOf, err := findLogs(dir)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, it := range items {
		o := it.obj
		if o.GetKind() == "Namespace" {
			continue
		}
		res.Repaired = append(res.Repaired, prepare(o, opts)...)
		var logs podLogs
		if o.GetKind() == "Pod" {
			logs = logsOf(o.GetNamespace(), o.GetName())
		}
		if len(logs) > 0 && opts.KubeletPort > 0 {
			node, _, _ := unstructured.NestedString(o.Object, "spec", "nodeName")
			if node != "" && !nodes[node] {
				ph := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "v1", "kind": "Node",
					"metadata": map[string]any{"name": node, "labels": map[string]any{PlaceholderLabel: "true"}},
					// Ready, so that it does not look like a failed node.
					"status": map[string]any{"conditions": []any{map[string]any{
						"type": "Ready", "status": "True", "reason": "Placeholder",
					}}},
				}}
				_ = prepare(ph, opts)
				if _, err := l.create(ctx, ph, ""); err != nil {
					errs = append(errs, err)
				}
				nodes[node] = true
				res.PlaceholderNodes = append(res.PlaceholderNodes, node)
			}
		}
		if _, err := l.create(ctx, o, opts.Namespace); err != nil {
			errs = append(errs, err)
			continue
		}
		res.Objects = append(res.Objects, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
		if len(logs) > 0 {
			n, err := l.serveLogs(ctx, o, logs, opts)
			if err != nil {
				errs = append(errs, err)
			}
			res.Logs += n
		}
	}
	sort.Strings(res.Objects)
	return res, errors.Join(errs...)
}

// loadOrder puts dependencies first and quota last.
func loadOrder(o *unstructured.Unstructured) int {
	switch o.GetKind() {
	case "Namespace":
		return 0
	case "CustomResourceDefinition", "PriorityClass":
		return 1
	case "Node":
		return 2
	case "Pod":
		return 4
	case "Event":
		return 5
	case "ResourceQuota", "LimitRange":
		return 6
	}
	return 3
}

// prepare drops server-assigned fields and fills what validation demands
// but hand-written or trimmed snapshots may omit. It returns the repairs of
// values a real API server would have rejected.
func prepare(o *unstructured.Unstructured, opts LoadOptions) []string {
	var repairs []string
	ref := o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
	if lb := o.GetLabels(); len(lb) > 0 {
		for k, v := range lb {
			if len(validation.IsValidLabelValue(v)) > 0 {
				fixed := strings.TrimFunc(v, func(r rune) bool {
					return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
				})
				repairs = append(repairs, fmt.Sprintf("%s: label %s=%q is invalid, loaded as %q", ref, k, v, fixed))
				lb[k] = fixed
			}
		}
		o.SetLabels(lb)
	}
	for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "managedFields", "generation",
		"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(o.Object, "metadata", f)
	}
	if refs := o.GetOwnerReferences(); len(refs) > 0 {
		for i := range refs {
			if refs[i].UID == "" {
				refs[i].UID = fakeUID(refs[i].Kind + "/" + o.GetNamespace() + "/" + refs[i].Name)
			}
			if refs[i].APIVersion == "" {
				refs[i].APIVersion = "v1"
			}
		}
		o.SetOwnerReferences(refs)
	}
	switch o.GetKind() {
	case "Pod":
		// The Priority admission plugin computes the value from the class.
		if pc, _, _ := unstructured.NestedString(o.Object, "spec", "priorityClassName"); pc != "" {
			unstructured.RemoveNestedField(o.Object, "spec", "priority")
		}
		for _, field := range []string{"containers", "initContainers"} {
			cs, _, _ := unstructured.NestedSlice(o.Object, "spec", field)
			for _, c := range cs {
				if m, ok := c.(map[string]any); ok && m["image"] == nil {
					m["image"] = "example.invalid/unknown:latest"
				}
			}
			if len(cs) > 0 {
				_ = unstructured.SetNestedSlice(o.Object, cs, "spec", field)
			}
		}
	case "Service":
		// Cluster IPs come from this cluster's service range.
		if ip, _, _ := unstructured.NestedString(o.Object, "spec", "clusterIP"); ip != "None" {
			unstructured.RemoveNestedField(o.Object, "spec", "clusterIP")
			unstructured.RemoveNestedField(o.Object, "spec", "clusterIPs")
		}
	case "Job":
		// The Job controller owns the selector and the controller-uid labels;
		// a snapshot's copy names the old uid, which validation refuses.
		if _, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "backoffLimitPerIndex"); !found {
			if _, has, _ := unstructured.NestedFieldNoCopy(o.Object, "status", "failedIndexes"); has {
				unstructured.RemoveNestedField(o.Object, "status", "failedIndexes")
				repairs = append(repairs, ref+": status.failedIndexes needs spec.backoffLimitPerIndex, dropped")
			}
		}
		if manual, _, _ := unstructured.NestedBool(o.Object, "spec", "manualSelector"); !manual {
			unstructured.RemoveNestedField(o.Object, "spec", "selector")
			for _, l := range []string{"controller-uid", "batch.kubernetes.io/controller-uid"} {
				unstructured.RemoveNestedField(o.Object, "spec", "template", "metadata", "labels", l)
			}
		}
	case "Event":
		if o.GetName() == "" {
			name, _, _ := unstructured.NestedString(o.Object, "involvedObject", "name")
			o.SetGenerateName(name + ".")
		}
	case "Node":
		if opts.KubeletPort > 0 {
			addrs, _, _ := unstructured.NestedSlice(o.Object, "status", "addresses")
			kept := []any{map[string]any{"type": "InternalIP", "address": "127.0.0.1"}}
			for _, a := range addrs {
				if m, ok := a.(map[string]any); ok && m["type"] != "InternalIP" {
					kept = append(kept, a)
				}
			}
			_ = unstructured.SetNestedSlice(o.Object, kept, "status", "addresses")
			_ = unstructured.SetNestedField(o.Object, int64(opts.KubeletPort), "status", "daemonEndpoints", "kubeletEndpoint", "Port")
		}
	}
	sort.Strings(repairs)
	return repairs
}

func fakeUID(s string) types.UID {
	h := sha256.Sum256([]byte(s))
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16]))
}

type loader struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newLoader(cfg *rest.Config) (*loader, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &loader{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

func (l *loader) mapping(o *unstructured.Unstructured) (*meta.RESTMapping, error) {
	gvk := o.GroupVersionKind()
	m, err := l.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// A CRD installed a moment ago: refresh discovery once.
		l.mapper.Reset()
		m, err = l.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	return m, err
}

// create creates o (AlreadyExists is fine) and then writes its status
// through the status subresource when it has one.
func (l *loader) create(ctx context.Context, o *unstructured.Unstructured, defaultNS string) (*unstructured.Unstructured, error) {
	m, err := l.mapping(o)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
	}
	var ri dynamic.ResourceInterface = l.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if o.GetNamespace() == "" {
			o.SetNamespace(defaultNS)
		}
		ri = l.dyn.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	status, hasStatus := o.Object["status"]
	created, err := ri.Create(ctx, o, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return o, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
	}
	if !hasStatus || status == nil || o.GetKind() == "Event" {
		return created, nil
	}
	if st, ok := status.(map[string]any); ok && o.GetKind() == "Pod" {
		// The server derives qosClass from the resources and refuses to
		// change it; keep its value even where the snapshot disagrees.
		if q, found, _ := unstructured.NestedString(created.Object, "status", "qosClass"); found {
			st["qosClass"] = q
		}
	}
	created.Object["status"] = status
	updated, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	// kwok may touch a node or pod it manages in between: retry on the latest.
	for try := 0; apierrors.IsConflict(err) && try < 5; try++ {
		latest, gerr := ri.Get(ctx, created.GetName(), metav1.GetOptions{})
		if gerr != nil {
			return nil, fmt.Errorf("get %s %s/%s: %w", o.GetKind(), o.GetNamespace(), created.GetName(), gerr)
		}
		latest.Object["status"] = status
		updated, err = ri.UpdateStatus(ctx, latest, metav1.UpdateOptions{})
	}
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return created, nil // no status subresource: create kept the status
	}
	if err != nil {
		return nil, fmt.Errorf("update status of %s %s/%s: %w", o.GetKind(), o.GetNamespace(), created.GetName(), err)
	}
	return updated, nil
}

// podLogs maps container name to its log files.
type podLogs map[string]*containerLogs

type containerLogs struct{ current, previous string }

// findLogs returns a pod's log files, filed as the snapshot reader files
// them (layout v2 by namespace, or v1 by pod name alone); a log filed
// without a container name belongs to the pod's main container, "".
func findLogs(dir string) (func(namespace, pod string) podLogs, error) {
	s, err := snapshot.Read(dir)
	if err != nil {
		return nil, err
	}
	return func(namespace, pod string) podLogs {
		out := podLogs{}
		for _, r := range s.PodLogs(namespace, pod) {
			cl := out[r.Container]
			if cl == nil {
				cl = &containerLogs{}
				out[r.Container] = cl
			}
			if r.Previous {
				cl.previous = filepath.Join(dir, filepath.FromSlash(r.Rel))
			} else {
				cl.current = filepath.Join(dir, filepath.FromSlash(r.Rel))
			}
		}
		return out
	}, nil
}

var logsGVR = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "logs"}

// serveLogs converts a pod's logs to CRI format and creates the kwok Logs
// object that makes the kubelet endpoint serve them.
func (l *loader) serveLogs(ctx context.Context, pod *unstructured.Unstructured, logs podLogs, opts LoadOptions) (int, error) {
	if opts.LogDir == "" {
		return 0, errors.New("LoadOptions.LogDir is required for snapshots with logs")
	}
	containers, _, _ := unstructured.NestedSlice(pod.Object, "spec", "containers")
	inits, _, _ := unstructured.NestedSlice(pod.Object, "spec", "initContainers")
	var names []string
	for _, c := range append(inits, containers...) {
		if m, ok := c.(map[string]any); ok {
			n, _ := m["name"].(string)
			names = append(names, n)
		}
	}
	// logs/<pod>.log belongs to the only container, or the first one.
	if short := logs[""]; short != nil && len(containers) > 0 {
		main, _ := containers[0].(map[string]any)["name"].(string)
		if logs[main] == nil {
			logs[main] = short
		}
	}
	n := 0
	var entries []any
	for _, c := range names {
		cl := logs[c]
		if cl == nil {
			continue
		}
		entry := map[string]any{"containers": []any{c}}
		for _, f := range []struct {
			src, field, suffix string
		}{{cl.current, "logsFile", ".log"}, {cl.previous, "previousLogsFile", ".previous.log"}} {
			if f.src == "" {
				continue
			}
			dst := filepath.Join(opts.LogDir, pod.GetNamespace(), pod.GetName(), c+f.suffix)
			if err := ToCRI(f.src, dst, opts.StripTimestamps); err != nil {
				return n, err
			}
			entry[f.field] = dst
			n++
		}
		if entry["logsFile"] == nil {
			// kwok needs a current log to serve the previous one.
			empty := filepath.Join(opts.LogDir, pod.GetNamespace(), pod.GetName(), c+".empty.log")
			if err := os.WriteFile(empty, nil, 0o644); err != nil {
				return n, err
			}
			entry["logsFile"] = empty
		}
		entries = append(entries, entry)
	}
	if len(entries) == 0 {
		return 0, nil
	}
	cr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Logs",
		"metadata": map[string]any{"name": pod.GetName(), "namespace": pod.GetNamespace()},
		"spec":     map[string]any{"logs": entries},
	}}
	_, err := l.dyn.Resource(logsGVR).Namespace(pod.GetNamespace()).Create(ctx, cr, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return n, fmt.Errorf("create kwok Logs for %s/%s: %w", pod.GetNamespace(), pod.GetName(), err)
	}
	return n, nil
}

// tsPrefix matches the RFC 3339 timestamp `kubectl logs --timestamps` puts
// before each line.
var tsPrefix = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) `)

// ToCRI converts a plain or timestamped log file to the CRI format kwok
// serves: "<RFC3339Nano> stdout F <line>". Lines without a timestamp get
// the last one seen (or a fixed epoch), so the conversion is deterministic.
func ToCRI(src, dst string, strip bool) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	last := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	r := bufio.NewReader(in)
	for {
		line, rerr := r.ReadString('\n')
		if line == "" && rerr != nil {
			break
		}
		line = strings.TrimSuffix(line, "\n")
		if m := tsPrefix.FindStringSubmatch(line); m != nil {
			if t, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
				last = t
				if strip {
					line = line[len(m[0]):]
				}
			}
		}
		fmt.Fprintf(w, "%s stdout F %s\n", last.UTC().Format(time.RFC3339Nano), line)
		if rerr != nil {
			break
		}
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
