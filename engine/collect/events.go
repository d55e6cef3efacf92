package collect

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/traindoc/traindoc/engine/snapshot"
)

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
