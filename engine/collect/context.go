package collect

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

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
