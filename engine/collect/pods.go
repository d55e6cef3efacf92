package collect

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

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
