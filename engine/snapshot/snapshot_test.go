package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestReadMixed(t *testing.T) {
	s, err := Read("testdata/mixed")
	if err != nil {
		t.Fatal(err)
	}
	if s.CollectedAt != "2026-03-01T04:00:00Z" {
		t.Errorf("collectedAt = %q, want UTC 2026-03-01T04:00:00Z", s.CollectedAt)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "forbidden") {
		t.Errorf("notes = %q", s.Notes)
	}
	kinds := map[string]int{}
	for _, o := range s.Objects {
		kinds[o.Kind]++
	}
	want := map[string]int{"PyTorchJob": 1, "Pod": 1, "Event": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%s objects = %d, want %d (all: %v)", k, kinds[k], n, kinds)
		}
	}
	if kinds["Node"] != 0 {
		t.Errorf("the broken Node must not be read")
	}
	// Pods from a typed list get their kind from the list.
	var pod *Object
	for _, o := range s.Objects {
		if o.Kind == "Pod" {
			pod = o
		}
	}
	if pod == nil || pod.APIVersion != "v1" || len(pod.Owners) != 1 || pod.Owners[0].UID != "u-a" {
		t.Errorf("pod = %+v", pod)
	}
	wantWarnings := []string{
		"blob.json: binary data",
		"broken.yaml: line ",
		"config.yaml: document 1: not a Kubernetes object",
		"noname.yaml: document 1: Pod has no metadata.name",
	}
	if len(s.Warnings) != len(wantWarnings) {
		t.Fatalf("warnings = %q, want %d", s.Warnings, len(wantWarnings))
	}
	for i, w := range wantWarnings {
		if !strings.HasPrefix(s.Warnings[i], w) {
			t.Errorf("warning %d = %q, want prefix %q", i, s.Warnings[i], w)
		}
	}
	// testdata/mixed is in layout v1 on purpose.
	logs := s.PodLogs("ml", "p1")
	if len(logs) != 2 || !logs[0].Previous || logs[1].Previous || logs[0].Container != "main" || logs[1].Rel != "logs/p1/main.log" {
		t.Errorf("logs of p1 = %+v", logs)
	}
	// p2 has no Pod object: its v1 log is nobody else's either.
	if l := s.PodLogs("ml", "p2"); len(l) != 1 || l[0].Container != "" || l[0].Rel != "logs/p2.log" {
		t.Errorf("logs of p2 = %+v", l)
	}
	if dir, ok := s.PodExec("ml", "p1"); !ok || dir != "exec/p1" {
		t.Errorf("exec dir of p1 = %q, %v", dir, ok)
	}
}

// logRels returns "rel (container, previous)" of each log, for comparison.
func logRels(refs []LogRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%s (%s, %v)", r.Rel, r.Container, r.Previous))
	}
	return out
}

func TestPodFiles(t *testing.T) {
	tests := []struct {
		snapshot, namespace, pod string
		logs                     []string
		exec                     string
	}{
		// Layout v2: the namespace keeps apart pods of the same name.
		{"v2", "team-a", "train-master-0", []string{
			"logs/team-a/train-master-0/pytorch.previous.log (pytorch, true)",
			"logs/team-a/train-master-0/pytorch.log (pytorch, false)",
		}, ""},
		{"v2", "team-b", "train-master-0", []string{
			"logs/team-b/train-master-0/init.log (init, false)",
			"logs/team-b/train-master-0/pytorch.log (pytorch, false)",
		}, "exec/team-b/train-master-0"},
		{"v2", "team-c", "train-master-0", nil, ""},
		// A namespace folder is not the folder of a pod named like it.
		{"v2", "tools", "team-a", nil, ""},
		// Layout v1: used when the pod name is unique in the snapshot.
		{"v1-ambiguous", "team-a", "solo-0", []string{"logs/solo-0.log (, false)"}, ""},
		// ... and never when two namespaces have a pod of that name.
		{"v1-ambiguous", "team-a", "train-master-0", nil, ""},
		{"v1-ambiguous", "team-b", "train-master-0", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.snapshot+"/"+tt.namespace+"/"+tt.pod, func(t *testing.T) {
			s, err := Read(filepath.Join("testdata", tt.snapshot))
			if err != nil {
				t.Fatal(err)
			}
			if got := logRels(s.PodLogs(tt.namespace, tt.pod)); !slices.Equal(got, tt.logs) {
				t.Errorf("PodLogs = %q, want %q", got, tt.logs)
			}
			dir, ok := s.PodExec(tt.namespace, tt.pod)
			if ok != (tt.exec != "") || (ok && dir != tt.exec) {
				t.Errorf("PodExec = %q, %v, want %q", dir, ok, tt.exec)
			}
		})
	}
}

// TestV1Ambiguous: a v1 folder that could belong to pods of several
// namespaces is a warning naming the folder and the namespaces.
func TestV1Ambiguous(t *testing.T) {
	s, err := Read("testdata/v1-ambiguous")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"exec/train-master-0: ", "logs/train-master-0.previous.log: ", "logs/train-master-0: "}
	if len(s.Warnings) != len(want) {
		t.Fatalf("warnings = %q, want %d", s.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(s.Warnings[i], w) || !strings.Contains(s.Warnings[i], "namespaces team-a, team-b") {
			t.Errorf("warning %d = %q, want %q naming namespaces team-a, team-b", i, s.Warnings[i], w)
		}
	}
}

// TestPodFilesRegularOnly: a snapshot may come from anyone; a log that is a
// symlink could expose any file of the machine that reads it.
func TestPodFilesRegularOnly(t *testing.T) {
	dir := t.TempDir()
	pod := filepath.Join(dir, "logs", "ml", "p")
	if err := os.MkdirAll(pod, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(pod, "main.log")); err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(filepath.Join(pod, "sidecar.log"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := logRels(s.PodLogs("ml", "p")); !slices.Equal(got, []string{"logs/ml/p/sidecar.log (sidecar, false)"}) {
		t.Errorf("PodLogs = %q, want the regular file only", got)
	}
}

func TestV2HasNoWarnings(t *testing.T) {
	s, err := Read("testdata/v2")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings = %q", s.Warnings)
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := Read("testdata/does-not-exist"); err == nil {
		t.Error("missing directory: want error")
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file instead of directory: err = %v", err)
	}
}

func TestBadCollectedAt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "snapshot.yaml"), []byte("collectedAt: yesterday\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "snapshot.yaml") || s.CollectedAt != "" {
		t.Errorf("warnings = %q, collectedAt = %q", s.Warnings, s.CollectedAt)
	}
}

// TestParseObjectsLines: a syntax error is reported at its line in the
// file, not in its document, so that it can be found.
func TestParseObjectsLines(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
	tests := []struct {
		name, in string
		objects  int
		warning  string
	}{
		{"first document", "kind: Pod\nx: a: b\n", 0, "f.yaml: line 2: mapping values"},
		{"third document", pod + "---\n" + pod + "--- # comment\nkind: Pod\nx: a: b\n", 2, "f.yaml: line 10: mapping values"},
		{"JSON", "{\"apiVersion\": \"v1\",\n\"kind\": \"Pod\",\n\"metadata\": {\"name\": @}}\n", 0, "f.yaml: line 3: found character"},
		{"separator inside text is no separator", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nx: a---b\n", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, warns := parseObjects([]byte(tt.in), "f.yaml")
			if len(objs) != tt.objects {
				t.Errorf("%d objects, want %d", len(objs), tt.objects)
			}
			if tt.warning == "" && len(warns) != 0 || tt.warning != "" && (len(warns) != 1 || !strings.HasPrefix(warns[0], tt.warning)) {
				t.Errorf("warnings = %q, want one starting %q", warns, tt.warning)
			}
		})
	}
}

func TestNotes(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"notes: one note\n", []string{"one note"}},
		{"notes: [a, b]\n", []string{"a", "b"}},
		{"notes:\n", nil},
		{"cluster: c\n", nil},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "snapshot.yaml"), []byte(tt.in), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Notes, tt.want) || len(s.Warnings) != 0 {
			t.Errorf("%q: notes = %q, warnings %q, want %q", tt.in, s.Notes, s.Warnings, tt.want)
		}
	}
}

// TestTypedKinds: the core kinds come typed; a field of the wrong type
// costs that field and a warning naming the file and the object, never the
// object.
func TestTypedKinds(t *testing.T) {
	in := `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml, uid: u1, labels: {app: a}}
spec: {nodeName: n1}
status:
  phase: Running
  containerStatuses:
  - {name: main, restartCount: "three", state: {terminated: {exitCode: 137}}}
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e, namespace: ml}
regarding: {kind: Pod, name: p}
note: Back-off restarting failed container
deprecatedCount: 4
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml}
status: {active: 1}
---
apiVersion: v1
kind: Node
metadata: {name: n1, creationTimestamp: yesterday}
---
apiVersion: example.com/v1
kind: Pod
metadata: {name: custom}
`
	objs, warns := parseObjects([]byte(in), "objs.yaml")
	if len(objs) != 5 {
		t.Fatalf("%d objects, want 5 (warnings %q)", len(objs), warns)
	}
	wantWarns := []string{"objs.yaml: Pod ml/p not fully read: ", "objs.yaml: Node n1 not fully read: "}
	if len(warns) != len(wantWarns) {
		t.Fatalf("warnings = %q, want %d", warns, len(wantWarns))
	}
	for i, w := range wantWarns {
		if !strings.HasPrefix(warns[i], w) {
			t.Errorf("warning %d = %q, want prefix %q", i, warns[i], w)
		}
	}
	pod := objs[0].Pod()
	if pod == nil || pod.Name != "p" || pod.Labels["app"] != "a" || pod.Spec.NodeName != "n1" || pod.Status.Phase != "Running" {
		t.Fatalf("pod = %+v", pod)
	}
	if cs := pod.Status.ContainerStatuses; len(cs) != 1 || cs[0].Name != "main" || cs[0].State.Terminated == nil || cs[0].State.Terminated.ExitCode != 137 {
		t.Errorf("container statuses = %+v, want all but the restart count", cs)
	}
	if e := objs[1].EventV1(); e == nil || e.Note != "Back-off restarting failed container" || e.DeprecatedCount != 4 || e.Regarding.Name != "p" {
		t.Errorf("event = %+v", e)
	}
	if objs[1].Event() != nil || objs[1].Pod() != nil {
		t.Error("an events.k8s.io Event is only an EventV1")
	}
	if j := objs[2].Job(); j == nil || j.Status.Active != 1 {
		t.Errorf("job = %+v", j)
	}
	if n := objs[3].Node(); n == nil || n.Name != "n1" {
		t.Errorf("node = %+v, want its metadata kept", n)
	}
	if objs[4].Pod() != nil {
		t.Error("a Pod of another group is not a core Pod")
	}
	if name, _, _ := unstructured.NestedString(objs[4].Unstructured().Object, "metadata", "name"); name != "custom" {
		t.Errorf("unstructured name = %q", name)
	}
}
