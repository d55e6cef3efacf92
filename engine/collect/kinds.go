package collect

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/traindoc/traindoc/engine/kinds"
)

// kindInfo is one served version of a kind of the registry (engine/kinds),
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
