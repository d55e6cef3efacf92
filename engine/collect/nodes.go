package collect

import (
	"context"
	"errors"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/traindoc/traindoc/engine/snapshot"
)

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
	for _, n := range slices.Sorted(maps.Keys(names)) {
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
