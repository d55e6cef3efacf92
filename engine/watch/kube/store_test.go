package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/traindoc/traindoc/engine/watch"
)

func TestConfigMapStore(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	s := ConfigMapStore{Client: cs, Namespace: "traindoc", Name: "traindoc-watch-state"}
	st, err := s.Load(ctx)
	if err != nil || len(st.Jobs) != 0 {
		t.Fatalf("missing ConfigMap: %+v %v", st, err)
	}
	st.Jobs["ml/gpt"] = &watch.JobState{Attempts: 2, Failures: map[string]*watch.Failure{"u1@t": {Action: "restart"}}}
	for i := 0; i < 2; i++ { // create, then update
		if err := s.Save(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	back, err := s.Load(ctx)
	if err != nil || back.Jobs["ml/gpt"].Attempts != 2 || back.Jobs["ml/gpt"].Failures["u1@t"].Action != "restart" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	cm, _ := cs.CoreV1().ConfigMaps("traindoc").Get(ctx, "traindoc-watch-state", metav1.GetOptions{})
	if cm.Labels["app.kubernetes.io/name"] != "traindoc" {
		t.Errorf("labels = %v", cm.Labels)
	}
}

// A state too big for a ConfigMap loses old observations first, never the
// failures acted on.
func TestConfigMapStoreShrinks(t *testing.T) {
	ctx := context.Background()
	s := ConfigMapStore{Client: fake.NewClientset(), Namespace: "traindoc", Name: "state"}
	st := watch.NewState()
	pad := strings.Repeat("x", 2000)
	for j := 0; j < 40; j++ {
		js := &watch.JobState{Failures: map[string]*watch.Failure{fmt.Sprintf("u%d@t", j): {Action: "restart", Category: "exec.nccl-timeout"}}}
		for i := 0; i < 24; i++ {
			js.History = append(js.History, watch.Observation{Time: fmt.Sprint(i), Job: pad})
		}
		st.Jobs[fmt.Sprintf("ml/job-%d", j)] = js
	}
	if err := s.Save(ctx, st); err != nil {
		t.Fatal(err)
	}
	back, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	js := back.Jobs["ml/job-7"]
	if len(js.History) == 0 || len(js.History) >= 24 || js.History[len(js.History)-1].Time != "23" || js.Failures["u7@t"] == nil {
		t.Errorf("kept %d observations (last %q), failures %v", len(js.History), js.History[len(js.History)-1].Time, js.Failures)
	}
}
