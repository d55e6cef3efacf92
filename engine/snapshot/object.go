package snapshot

import (
	"encoding/json"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Object is one Kubernetes object as read, with the fields every adapter
// needs pulled out. The core kinds (Pod, Event, Node, ResourceQuota, batch
// Job) are also decoded into their k8s.io/api types, which Pod, Event and
// the other accessors return; every other kind is read from Raw with
// apimachinery's unstructured helpers.
type Object struct {
	Kind       string
	APIVersion string
	// Group is the API group ("" for core).
	Group       string
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerRef
	// Raw is the object as decoded: JSON-like values, the content of an
	// unstructured.Unstructured. It is nil for an Event once its typed
	// value is made: events are most of a large snapshot and are read
	// only through Event and EventV1.
	Raw map[string]any
	// File is the snapshot-relative file the object came from.
	File string
	// typed is the k8s.io/api value of a core kind, nil for other kinds.
	typed any
}

// OwnerRef is an ownerReferences entry.
type OwnerRef struct {
	Kind       string
	APIVersion string
	Name       string
	UID        string
	Controller bool
}

func newObject(m map[string]any, file string) *Object {
	u := &unstructured.Unstructured{Object: m}
	o := &Object{Raw: m, File: file}
	o.Kind = u.GetKind()
	o.APIVersion = u.GetAPIVersion()
	if i := strings.LastIndex(o.APIVersion, "/"); i >= 0 {
		o.Group = o.APIVersion[:i]
	}
	o.Namespace = u.GetNamespace()
	o.Name = u.GetName()
	o.UID = string(u.GetUID())
	o.Labels = u.GetLabels()
	o.Annotations = u.GetAnnotations()
	for _, r := range u.GetOwnerReferences() {
		o.Owners = append(o.Owners, OwnerRef{
			Kind: r.Kind, APIVersion: r.APIVersion, Name: r.Name, UID: string(r.UID),
			Controller: r.Controller != nil && *r.Controller,
		})
	}
	return o
}

// typedKinds makes an empty value of each kind decoded into k8s.io/api
// types.
var typedKinds = map[schema.GroupKind]func() any{
	{Kind: "Pod"}:                           func() any { return &corev1.Pod{} },
	{Kind: "Event"}:                         func() any { return &corev1.Event{} },
	{Group: "events.k8s.io", Kind: "Event"}: func() any { return &eventsv1.Event{} },
	{Kind: "Node"}:                          func() any { return &corev1.Node{} },
	{Kind: "ResourceQuota"}:                 func() any { return &corev1.ResourceQuota{} },
	{Group: "batch", Kind: "Job"}:           func() any { return &batchv1.Job{} },
}

// decode fills typed for the core kinds. It goes through JSON, as the API
// server's own clients do: a field of the wrong type is skipped and the
// rest still read, so a hand-edited snapshot loses only that field. The
// error says what was not read; the object is kept either way, with the
// metadata already read, so that it still links to its job.
func (o *Object) decode() error {
	newTyped, ok := typedKinds[schema.GroupKind{Group: o.Group, Kind: o.Kind}]
	if !ok {
		return nil
	}
	t := newTyped()
	o.typed = t
	b, err := json.Marshal(o.Raw)
	if err == nil {
		err = json.Unmarshal(b, t)
	}
	if err != nil {
		o.restoreMeta()
		name := o.Name
		if o.Namespace != "" {
			name = o.Namespace + "/" + name
		}
		return fmt.Errorf("%s %s not fully read: %w", o.Kind, name, err)
	}
	if o.Kind == "Event" {
		// Events are most of a large snapshot's objects (100,000 for a
		// 4,000-pod job) and only ever read through their typed value,
		// so their maps are not kept.
		o.Raw = nil
	}
	return nil
}

// restoreMeta puts back the metadata a failed decode may have left out.
func (o *Object) restoreMeta() {
	var meta *metav1.ObjectMeta
	switch t := o.typed.(type) {
	case *corev1.Pod:
		meta = &t.ObjectMeta
	case *corev1.Event:
		meta = &t.ObjectMeta
	case *eventsv1.Event:
		meta = &t.ObjectMeta
	case *corev1.Node:
		meta = &t.ObjectMeta
	case *corev1.ResourceQuota:
		meta = &t.ObjectMeta
	case *batchv1.Job:
		meta = &t.ObjectMeta
	default:
		return
	}
	meta.Name, meta.Namespace, meta.UID = o.Name, o.Namespace, types.UID(o.UID)
	meta.Labels, meta.Annotations = o.Labels, o.Annotations
}

// Pod returns the object as a core/v1 Pod, or nil if it is none.
func (o *Object) Pod() *corev1.Pod { p, _ := o.typed.(*corev1.Pod); return p }

// Event returns the object as a core/v1 Event, or nil if it is none.
func (o *Object) Event() *corev1.Event { e, _ := o.typed.(*corev1.Event); return e }

// EventV1 returns the object as an events.k8s.io/v1 Event, or nil.
func (o *Object) EventV1() *eventsv1.Event { e, _ := o.typed.(*eventsv1.Event); return e }

// Node returns the object as a core/v1 Node, or nil if it is none.
func (o *Object) Node() *corev1.Node { n, _ := o.typed.(*corev1.Node); return n }

// ResourceQuota returns the object as a core/v1 ResourceQuota, or nil.
func (o *Object) ResourceQuota() *corev1.ResourceQuota {
	q, _ := o.typed.(*corev1.ResourceQuota)
	return q
}

// Job returns the object as a batch/v1 Job, or nil if it is none.
func (o *Object) Job() *batchv1.Job { j, _ := o.typed.(*batchv1.Job); return j }

// Unstructured returns the object for apimachinery's unstructured
// helpers; it shares Raw.
func (o *Object) Unstructured() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: o.Raw}
}

func (o *Object) sortKey() string {
	return o.Kind + "\x00" + o.Namespace + "\x00" + o.Name + "\x00" + o.File
}

// Key is kind/namespace/name.
func (o *Object) Key() string { return o.Kind + "/" + o.Namespace + "/" + o.Name }
