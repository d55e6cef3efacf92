package restart

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/traindoc/traindoc/engine/watch"
)

// Recreate restarts a job by deleting the failed instance and creating it
// again from its stored object (Build), through the dynamic client.
type Recreate struct {
	Client dynamic.Interface
	Mapper meta.RESTMapper
	Resume Resume
	// Propagation is how the failed instance's pods go: Foreground (the
	// default) waits for them, so the new instance's pods, which have the
	// same names, do not collide with them.
	Propagation metav1.DeletionPropagation
	// Clock paces the wait for the deletion; Poll and Timeout bound it.
	Clock   watch.Clock
	Poll    time.Duration
	Timeout time.Duration
	Log     *slog.Logger
}

// Restart deletes the failed instance (only that one: the deletion is
// conditional on its UID) and creates the job again. Called again for the
// same request it finishes what is left: an instance already replaced for
// this failure is success, one replaced by someone else is an error, and
// nothing is deleted twice.
func (r *Recreate) Restart(ctx context.Context, req watch.RestartRequest) error {
	obj, err := Build(req, r.Resume)
	if err != nil {
		return err
	}
	ri, err := r.resource(obj)
	if err != nil {
		return err
	}
	cur, err := ri.Get(ctx, req.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		// Deleted already (by an earlier try, or by its owner).
	case err != nil:
		return fmt.Errorf("get %s: %w", req.Job, err)
	case string(cur.GetUID()) == req.UID:
		if err := r.delete(ctx, ri, req); err != nil {
			return err
		}
	default:
		if cur.GetAnnotations()[watch.AnnotationFailure] == req.Failure {
			return nil
		}
		return fmt.Errorf("%s is another instance (uid %s) than the one that failed (uid %s); left alone: %w", req.Job, cur.GetUID(), req.UID, watch.ErrNotRestartable)
	}
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: "traindoc"})
	if apierrors.IsAlreadyExists(err) {
		cur, gerr := ri.Get(ctx, req.Name, metav1.GetOptions{})
		if gerr == nil && cur.GetAnnotations()[watch.AnnotationFailure] == req.Failure {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", req.Job, err)
	}
	r.log().InfoContext(ctx, "job restarted", "job", req.Job, "kind", req.Kind, "uid", created.GetUID(), "attempt", req.Attempt)
	return nil
}

func (r *Recreate) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

func (r *Recreate) resource(obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := obj.GroupVersionKind()
	m, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		if rm, ok := r.Mapper.(meta.ResettableRESTMapper); ok {
			rm.Reset()
			m, err = r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("resource of %s: %w", gvk, err)
	}
	return r.Client.Resource(m.Resource).Namespace(obj.GetNamespace()), nil
}

// delete removes the failed instance and waits until it is gone.
func (r *Recreate) delete(ctx context.Context, ri dynamic.ResourceInterface, req watch.RestartRequest) error {
	prop := r.Propagation
	if prop == "" {
		prop = metav1.DeletePropagationForeground
	}
	uid := types.UID(req.UID)
	err := ri.Delete(ctx, req.Name, metav1.DeleteOptions{
		Preconditions:     &metav1.Preconditions{UID: &uid},
		PropagationPolicy: &prop,
	})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsConflict(err):
		return fmt.Errorf("%s changed before it could be deleted: %w", req.Job, err)
	case err != nil:
		return fmt.Errorf("delete %s: %w", req.Job, err)
	}
	clock := r.Clock
	if clock == nil {
		clock = watch.RealClock{}
	}
	poll, timeout := r.Poll, r.Timeout
	if poll <= 0 {
		poll = 2 * time.Second
	}
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	deadline := clock.Now().Add(timeout)
	for {
		cur, err := ri.Get(ctx, req.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && string(cur.GetUID()) != req.UID) {
			return nil
		}
		// Other errors may pass (a timeout, a restarting API server):
		// keep asking until the deadline.
		if !clock.Now().Before(deadline) {
			if err != nil {
				return fmt.Errorf("wait for %s to go: %w", req.Job, err)
			}
			return fmt.Errorf("%s still exists %s after its deletion (finalizers: %v)", req.Job, timeout, cur.GetFinalizers())
		}
		if err := clock.Sleep(ctx, poll); err != nil {
			return err
		}
	}
}
