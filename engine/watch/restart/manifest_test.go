package restart

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/engine/watch"
)

// stored returns the raw object of kind from a bundled fixture.
func stored(t *testing.T, fixture, kind string) map[string]any {
	t.Helper()
	snap, err := snapshot.Read(filepath.Join("..", "..", "..", "fixtures", fixture))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Objects {
		if o.Kind == kind {
			return o.Raw
		}
	}
	t.Fatalf("no %s in %s", kind, fixture)
	return nil
}

func request(obj map[string]any) watch.RestartRequest {
	u := &unstructured.Unstructured{Object: obj}
	return watch.RestartRequest{
		Job: u.GetNamespace() + "/" + u.GetName(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(),
		UID: string(u.GetUID()), Object: obj, Attempt: 2, Category: "exec.nccl-timeout",
		Failure:    string(u.GetUID()) + "@2026-03-05T21:27:04Z",
		Checkpoint: &watch.Checkpoint{Step: 8000, Path: "/results/conformer-xl/checkpoints/epoch=1-step=8000.ckpt"},
	}
}

func mustWords(t *testing.T, s string) *Words {
	t.Helper()
	w, err := ParseWords(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustEnv(t *testing.T, s string) EnvTemplate {
	t.Helper()
	e, err := ParseEnv(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func strs(u *unstructured.Unstructured, path ...string) []string {
	v, _, _ := unstructured.NestedStringSlice(u.Object, path...)
	return v
}

func containers(t *testing.T, u *unstructured.Unstructured, path ...string) []map[string]any {
	t.Helper()
	cs, ok, err := unstructured.NestedSlice(u.Object, path...)
	if !ok || err != nil {
		t.Fatalf("no containers at %v: %v", path, err)
	}
	var out []map[string]any
	for _, c := range cs {
		out = append(out, c.(map[string]any))
	}
	return out
}

func envOf(c map[string]any, name string) (string, bool) {
	l, _ := c["env"].([]any)
	for _, x := range l {
		m := x.(map[string]any)
		if m["name"] == name {
			v, _ := m["value"].(string)
			return v, true
		}
	}
	return "", false
}

func TestBuildStripsServerFields(t *testing.T) {
	obj := stored(t, "exec-nccl-timeout", "PyTorchJob")
	req := request(obj)
	u, err := Build(req, Resume{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
		if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", f); ok {
			t.Errorf("metadata.%s kept", f)
		}
	}
	if _, ok := u.Object["status"]; ok {
		t.Error("status kept")
	}
	if u.GetName() != "conformer-xl" || u.GetNamespace() != "asr" {
		t.Errorf("name = %s/%s", u.GetNamespace(), u.GetName())
	}
	ann := u.GetAnnotations()
	want := map[string]string{
		watch.AnnotationAttempt: "2", watch.AnnotationFailure: req.Failure, watch.AnnotationReason: "exec.nccl-timeout",
		watch.AnnotationFromUID: req.UID, watch.AnnotationCheckpoint: req.Checkpoint.Path,
	}
	for k, v := range want {
		if ann[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, ann[k], v)
		}
	}
	// The stored object itself is untouched.
	if (&unstructured.Unstructured{Object: obj}).GetUID() == "" || obj["status"] == nil {
		t.Error("the stored object was modified")
	}
}

func TestBuildResumePerKind(t *testing.T) {
	arg := mustWords(t, "--resume-from={{.Checkpoint}}")
	env := mustEnv(t, "RESUME_FROM={{.Checkpoint}}")
	const ck = "/results/conformer-xl/checkpoints/epoch=1-step=8000.ckpt"
	tests := []struct {
		fixture, kind string
		check         func(t *testing.T, u *unstructured.Unstructured)
	}{
		{"exec-nccl-timeout", "PyTorchJob", func(t *testing.T, u *unstructured.Unstructured) {
			// command: [/bin/bash, -c], args: [script]: the word joins the
			// script, shell-quoted, instead of becoming $0.
			for _, rt := range []string{"Master", "Worker"} {
				c := containers(t, u, "spec", "pytorchReplicaSpecs", rt, "template", "spec", "containers")[0]
				args := c["args"].([]any)
				if len(args) != 1 || !strings.HasSuffix(args[0].(string), " --resume-from="+ck) {
					t.Errorf("%s args = %q", rt, args)
				}
				if v, _ := envOf(c, "RESUME_FROM"); v != ck {
					t.Errorf("%s env RESUME_FROM = %q", rt, v)
				}
				if v, _ := envOf(c, "NCCL_DEBUG"); v != "INFO" {
					t.Errorf("%s lost its env: NCCL_DEBUG = %q", rt, v)
				}
			}
		}},
		{"job-debug-mode", "PyTorchTrainingJob", func(t *testing.T, u *unstructured.Unstructured) {
			specs, _, _ := unstructured.NestedSlice(u.Object, "spec", "replicaSpecs")
			c := specs[0].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			args := c["args"].([]any)
			if args[len(args)-1] != "--resume-from="+ck || args[0] != "train.py" {
				t.Errorf("args = %q", args)
			}
		}},
		{"healthy-running-ray", "RayJob", func(t *testing.T, u *unstructured.Unstructured) {
			ep, _, _ := unstructured.NestedString(u.Object, "spec", "entrypoint")
			if !strings.HasSuffix(ep, "--max-steps 4000 --resume-from="+ck) {
				t.Errorf("entrypoint = %q", ep)
			}
			head := containers(t, u, "spec", "rayClusterSpec", "headGroupSpec", "template", "spec", "containers")[0]
			if v, _ := envOf(head, "RESUME_FROM"); v != ck {
				t.Errorf("head env = %q", v)
			}
			// ray start's own args are left alone.
			if a := head["args"].([]any); len(a) != 1 || strings.Contains(a[0].(string), "resume") {
				t.Errorf("head args changed: %q", a)
			}
		}},
		{"progress-stalled", "TrainJob", func(t *testing.T, u *unstructured.Unstructured) {
			args := strs(u, "spec", "trainer", "args")
			cmd := strs(u, "spec", "trainer", "command")
			all := strings.Join(append(cmd, args...), " ")
			if !strings.Contains(all, "--resume-from="+ck) {
				t.Errorf("trainer command+args = %q", all)
			}
		}},
		{"exec-nccl-error", "MPIJob", func(t *testing.T, u *unstructured.Unstructured) {
			specs, _, _ := unstructured.NestedMap(u.Object, "spec", "mpiReplicaSpecs")
			if len(specs) != 2 {
				t.Fatalf("replica types = %d", len(specs))
			}
			for rt := range specs {
				c := containers(t, u, "spec", "mpiReplicaSpecs", rt, "template", "spec", "containers")[0]
				all := strings.Join(append(toStrings(anySlice(c["command"])), toStrings(anySlice(c["args"]))...), " ")
				has := strings.Contains(all, "--resume-from")
				if has != (rt == "Launcher") {
					t.Errorf("%s: resume word present = %v (%q)", rt, has, all)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			req := request(stored(t, tt.fixture, tt.kind))
			req.Checkpoint.Path = ck
			u, err := Build(req, Resume{Args: arg, Env: []EnvTemplate{env}})
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, u)
		})
	}
}

func anySlice(v any) []any { s, _ := v.([]any); return s }

func TestBuildRefuses(t *testing.T) {
	arg := mustWords(t, "--resume-from={{.Checkpoint}}")
	cases := map[string]watch.RestartRequest{
		"RayCluster": request(stored(t, "progress-gpu-idle", "RayCluster")),
		"no object":  {Job: "ml/x", Attempt: 1},
	}
	// A container that relies on the image's CMD: appending args would
	// replace it.
	obj := stored(t, "exec-nccl-timeout", "PyTorchJob")
	obj, _ = deepCopy(obj)
	for _, rt := range []string{"Master", "Worker"} {
		c, _, _ := unstructured.NestedSlice(obj, "spec", "pytorchReplicaSpecs", rt, "template", "spec", "containers")
		delete(c[0].(map[string]any), "command")
		delete(c[0].(map[string]any), "args")
		_ = unstructured.SetNestedSlice(obj, c, "spec", "pytorchReplicaSpecs", rt, "template", "spec", "containers")
	}
	cases["image CMD"] = request(obj)
	for name, req := range cases {
		_, err := Build(req, Resume{Args: arg})
		if !errors.Is(err, watch.ErrNotRestartable) {
			t.Errorf("%s: err = %v, want not restartable", name, err)
		}
	}
	// With no checkpoint there is nothing to resume from: the job is
	// recreated as written.
	req := request(stored(t, "exec-nccl-timeout", "PyTorchJob"))
	req.Checkpoint = nil
	u, err := Build(req, Resume{Args: arg})
	if err != nil {
		t.Fatal(err)
	}
	c := containers(t, u, "spec", "pytorchReplicaSpecs", "Master", "template", "spec", "containers")[0]
	if strings.Contains(c["args"].([]any)[0].(string), "resume") {
		t.Error("resume word added without a checkpoint")
	}
}

func TestShellScript(t *testing.T) {
	tests := []struct {
		cmd, args []string
		want      int
	}{
		{[]string{"/bin/bash", "-c"}, []string{"torchrun x.py"}, 2},
		{[]string{"/bin/bash", "-lc", "--"}, []string{"ray start"}, 3},
		{[]string{"sh", "-c", "python x.py"}, nil, 2},
		{[]string{"bash", "-e", "-c", "python x.py"}, nil, 3},
		{[]string{"python"}, []string{"train.py"}, -1},
		{[]string{"bash", "run.sh"}, nil, -1},
		{nil, []string{"--epochs", "3"}, -1},
	}
	for _, tt := range tests {
		if got := shellScript(tt.cmd, tt.args); got != tt.want {
			t.Errorf("shellScript(%q, %q) = %d, want %d", tt.cmd, tt.args, got, tt.want)
		}
	}
}
