package collect

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/internal/kinds"
)

// TestCollectSeededSecrets puts every secret of the seeded-secrets corpus
// (engine/redact/testdata) in the fields of a job, its pod and their
// events that a cluster serves (environment, arguments, annotations, the
// termination message, event messages and notes), collects them, and
// finds none in the snapshot written.
func TestCollectSeededSecrets(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "redact", "testdata", "seeded-secrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus []struct {
		Env, Secret, Text string
		Also              []string
	}
	if err := yaml.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	var env []corev1.EnvVar
	var jobEnv, args []any
	ann := map[string]string{}
	var secrets, texts []string
	for i, c := range corpus {
		secrets = append(append(secrets, c.Secret), c.Also...)
		texts = append(texts, c.Text)
		if c.Env != "" {
			env = append(env, corev1.EnvVar{Name: c.Env, Value: c.Secret})
			jobEnv = append(jobEnv, map[string]any{"name": c.Env, "value": c.Secret})
		}
		args = append(args, c.Text)
		ann[fmt.Sprintf("example.com/note-%d", i)] = c.Text
	}
	objs := []runtime.Object{
		uobj("kubeflow.org/v1", "PyTorchJob", "ml", "train", func(u *unstructured.Unstructured) {
			u.SetAnnotations(ann)
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "pytorch", "env": jobEnv, "args": args}},
				"spec", "pytorchReplicaSpecs", "Master", "template", "spec", "containers")
		}),
		pod("ml", "train-master-0", podLabels(map[string]string{kinds.LabelKubeflowJob: "train"}), func(p *corev1.Pod) {
			p.Annotations = ann
			p.Spec.Containers[0].Env = env
			p.Spec.Containers[0].Args = strings.Split(strings.Join(texts, "\x00"), "\x00")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: strings.Join(texts, "\n")},
			}}}
		}),
	}
	for i, text := range texts {
		ev := event("ml", fmt.Sprintf("e%d", i), "Pod", "train-master-0")
		ev.Message = text
		objs = append(objs, ev)
	}
	e := newEnv(t, objs...)
	opts := DefaultOptions()
	opts.Namespace = "ml"
	_, dir, err := e.collect(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s: secret %q leaks", strings.TrimPrefix(p, dir), s)
			}
		}
		all.Write(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The fields were written, masked: the test looked at real text.
	if n := strings.Count(all.String(), redact.Mask); n < 4*len(corpus) {
		t.Errorf("%d redaction marks in the snapshot, want at least %d", n, 4*len(corpus))
	}
}
