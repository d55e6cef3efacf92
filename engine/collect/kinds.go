package collect

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

// kindInfo is one served version of a kind of the registry (internal/kinds),
// which the snapshot adapters read too: what is collected live is what is
// diagnosed offline.
type kindInfo struct {
	GVR  schema.GroupVersionResource
	Kind string
	// Role says why the kind is collected: a Job kind is listed and
	// filtered by Options.Jobs and Options.Selector; a Workload kind is
	// collected when linked to a job (and is a job itself when named in
	// Options.Jobs, or when Standalone and unclaimed); a Gate kind is
	// collected when it refers to what was collected; a Queue kind is
	// collected when a collected job, gate, pod or queue names it.
	Role kinds.Role
	// ClusterScoped kinds are listed once, outside any namespace.
	ClusterScoped bool
}

// knownKinds lists every version of every registry kind, in registry order.
// Order matters only for determinism: results are sorted before they are
// written.
var knownKinds = func() []kindInfo {
	var out []kindInfo
	for _, k := range kinds.All() {
		for _, v := range k.Versions {
			out = append(out, kindInfo{
				GVR:  schema.GroupVersionResource{Group: k.Group, Version: v, Resource: k.Resource},
				Kind: k.Kind, Role: k.Role, ClusterScoped: k.ClusterScoped,
			})
		}
	}
	return out
}()

// GVK returns the group, version and kind of k.
func (k kindInfo) GVK() schema.GroupVersionKind { return k.GVR.GroupVersion().WithKind(k.Kind) }

// kobj is the registry's view of an object read from the API server.
func kobj(o *unstructured.Unstructured) *kinds.Object {
	return &kinds.Object{
		Group: o.GroupVersionKind().Group, Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName(), UID: string(o.GetUID()),
		Labels: o.GetLabels(), Annotations: o.GetAnnotations(), Owners: owners(o.GetOwnerReferences()), Raw: o.Object,
	}
}

func owners(refs []metav1.OwnerReference) []kinds.Owner {
	out := make([]kinds.Owner, 0, len(refs))
	for _, r := range refs {
		out = append(out, kinds.Owner{Kind: r.Kind, Name: r.Name, UID: string(r.UID)})
	}
	return out
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
