package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/traindoc/traindoc/engine/watch"
)

// StateKey is the ConfigMap key holding the state.
const StateKey = "state.json"

// maxConfigMap stays below the API's 1 MiB object limit with room for
// metadata.
const maxConfigMap = 900 << 10

// ConfigMapStore keeps the watch's state in a ConfigMap, so that the
// replica that becomes leader continues where the previous one stopped.
type ConfigMapStore struct {
	Client          kubernetes.Interface
	Namespace, Name string
}

// Load reads the state; a missing ConfigMap is an empty state.
func (s ConfigMapStore) Load(ctx context.Context) (*watch.State, error) {
	cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return watch.NewState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state %s/%s: %w", s.Namespace, s.Name, err)
	}
	data, ok := cm.Data[StateKey]
	if !ok {
		return watch.NewState(), nil
	}
	st, err := watch.Decode([]byte(data))
	if err != nil {
		return nil, fmt.Errorf("read state %s/%s: %w", s.Namespace, s.Name, err)
	}
	return st, nil
}

// Save writes the state. Only the leader writes, so a conflict means an
// earlier leader's late write: the newer state wins.
func (s ConfigMapStore) Save(ctx context.Context, st *watch.State) error {
	b, err := watch.Encode(st)
	if err != nil {
		return err
	}
	if len(b) > maxConfigMap {
		if b, err = shrink(st); err != nil {
			return err
		}
	}
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	for try := 0; try < 3; try++ {
		cm, err := cms.Get(ctx, s.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace,
				Labels: map[string]string{"app.kubernetes.io/name": "traindoc", "app.kubernetes.io/component": "watch-state"}}}
			cm.Data = map[string]string{StateKey: string(b)}
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: Component})
		} else if err == nil {
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[StateKey] = string(b)
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: Component})
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("write state %s/%s: %w", s.Namespace, s.Name, err)
		}
		return nil
	}
	return fmt.Errorf("write state %s/%s: kept conflicting", s.Namespace, s.Name)
}

// shrink drops the oldest observations and decisions until the state fits
// in a ConfigMap; failures acted on and pending restarts are kept, since
// they are what prevents acting twice.
func shrink(st *watch.State) ([]byte, error) {
	for keep := 12; keep >= 1; keep /= 2 {
		for _, js := range st.Jobs {
			if n := len(js.History) - keep; n > 0 {
				js.History = js.History[n:]
			}
			if n := len(js.Decisions) - keep; n > 0 {
				js.Decisions = js.Decisions[n:]
			}
		}
		b, err := watch.Encode(st)
		if err != nil {
			return nil, err
		}
		if len(b) <= maxConfigMap {
			return b, nil
		}
	}
	return nil, fmt.Errorf("state of %d jobs does not fit in a ConfigMap; use --state FILE on a volume", len(st.Jobs))
}
