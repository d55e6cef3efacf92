package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/traindoc/traindoc/engine/watch"
)

// EventReason is the reason of the Events the watch writes.
const EventReason = "TraindocDiagnosis"

// Component is the Events' source.
const Component = "traindoc"

// maxEventMessage keeps Event messages within what the API accepts.
const maxEventMessage = 1000

// Notifier writes an Event on a job when its diagnosis changes, so that
// `kubectl describe` shows it, and with Annotate the primary category as
// an annotation on the job.
type Notifier struct {
	Core     kubernetes.Interface
	Dynamic  dynamic.Interface
	Mapper   meta.RESTMapper
	Annotate bool
	// Instance is who wrote the Event (the pod's name).
	Instance string
	Clock    watch.Clock
}

// Notify publishes a notice.
func (n *Notifier) Notify(ctx context.Context, no watch.Notice) error {
	if no.Event {
		if err := n.event(ctx, no); err != nil {
			return err
		}
	}
	if no.Annotate && n.Annotate {
		return n.annotate(ctx, no)
	}
	return nil
}

func (n *Notifier) event(ctx context.Context, no watch.Notice) error {
	t := metav1.NewTime(n.now())
	typ := corev1.EventTypeWarning
	if no.Healthy {
		typ = corev1.EventTypeNormal
	}
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: no.Name + ".", Namespace: no.Namespace},
		InvolvedObject: corev1.ObjectReference{
			Kind: no.Kind, APIVersion: no.APIVersion, Namespace: no.Namespace, Name: no.Name, UID: types.UID(no.UID),
		},
		Reason: EventReason, Message: truncate(no.Message, maxEventMessage), Type: typ,
		Source:         corev1.EventSource{Component: Component},
		FirstTimestamp: t, LastTimestamp: t, Count: 1,
		ReportingController: "traindoc.dev/watch", ReportingInstance: n.Instance,
	}
	if _, err := n.Core.CoreV1().Events(no.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("event on %s/%s: %w", no.Namespace, no.Name, err)
	}
	return nil
}

func (n *Notifier) annotate(ctx context.Context, no watch.Notice) error {
	gv, err := schema.ParseGroupVersion(no.APIVersion)
	if err != nil {
		return fmt.Errorf("annotate %s/%s: %w", no.Namespace, no.Name, err)
	}
	m, err := n.Mapper.RESTMapping(gv.WithKind(no.Kind).GroupKind(), gv.Version)
	if err != nil {
		return fmt.Errorf("annotate %s/%s: %w", no.Namespace, no.Name, err)
	}
	// The UID precondition keeps the patch off a newer instance of the
	// same name.
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":         no.UID,
		"annotations": map[string]string{watch.AnnotationDiagnosis: no.Category},
	}})
	_, err = n.Dynamic.Resource(m.Resource).Namespace(no.Namespace).Patch(ctx, no.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: Component})
	// Gone, or replaced by another instance (the API server refuses the
	// UID as immutable, or as a failed precondition): that instance gets
	// its own annotation when it is diagnosed.
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) || apierrors.IsInvalid(err) && strings.Contains(err.Error(), "metadata.uid") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("annotate %s/%s: %w", no.Namespace, no.Name, err)
	}
	return nil
}

func (n *Notifier) now() time.Time {
	if n.Clock != nil {
		return n.Clock.Now()
	}
	return now()
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max-3]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}
