package explain

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/internal/ziptest"

	"github.com/traindoc/traindoc/engine/report"
)

var update = flag.Bool("update", false, "rewrite the golden prompts in testdata/golden")

// TestPromptGolden pins the built-in prompts: a change to a template or to
// the data shows up as a readable diff.
func TestPromptGolden(t *testing.T) {
	for _, lang := range Languages {
		t.Run(lang, func(t *testing.T) {
			e := newTestExplainer(t, Config{BaseURL: "http://127.0.0.1:1/v1", Lang: lang})
			rep := testReport()
			system, user, err := e.Prompt(&rep.Jobs[0], rep)
			if err != nil {
				t.Fatal(err)
			}
			got := "=== system ===\n" + system + "\n=== user ===\n" + user + "\n"
			golden(t, filepath.Join("testdata", "golden", "pytorchjob."+lang+".txt"), got)
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s", path, got)
	}
}

// TestExampleTemplate renders examples/prompts/pytorchjob.tmpl, which uses
// only the variables of the PyTorchJob diagnosis prompt format.
func TestExampleTemplate(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "prompts")
	e := newTestExplainer(t, Config{BaseURL: "http://127.0.0.1:1/v1", PromptsDir: dir})
	if src := e.TemplateSource("PyTorchJob"); src != filepath.Join(dir, "pytorchjob.tmpl") {
		t.Errorf("TemplateSource = %q", src)
	}
	rep := testReport()
	_, user, err := e.Prompt(&rep.Jobs[0], rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"You are a Kubernetes + Kubeflow diagnostic expert...\nJob Name: bert-large-pretrain\nJob Status: Failed\n",
		"Launcher Status: N/A\n",
		"Master: expected 1, created 1\n",
		"Worker: expected 2, created 2\n",
		"Master Diagnosis: Failed: 1/1 created, 0 pending, 0 running, 0 succeeded, 1 failed, 0 restarts; exec.oom-killed (error): Master was OOM-killed\n",
		"Worker Diagnosis: Failed: 2/2 created, 0 pending, 0 running, 0 succeeded, 2 failed, 1 restarts; exec.nccl-timeout (error): Workers timed out in a collective\n",
		"Error Information:\nSummary: The master was OOM-killed",
		"Primary cause:\n- [error] exec.oom-killed: Master was OOM-killed",
		"Related Kubernetes Events:\n```text\n2025-04-02T13:40:12Z [event] PyTorchJob/bert-large-pretrain: Created pod: bert-large-pretrain-master-0\n",
		"Relevant Pod Logs:\npod ml-research/bert-large-pretrain-master-0 container pytorch logs/bert-large-pretrain-master-0/pytorch.log:1042 (finding exec.oom-killed)",
		"Healthy: {Yes / No}",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("rendered example lacks %q\n%s", want, user)
		}
	}
	assertNoSecrets(t, "example prompt", user)
	golden(t, filepath.Join("testdata", "golden", "example-pytorchjob.txt"), user+"\n")
}

func TestOverridePrecedence(t *testing.T) {
	write := func(dir, name, body string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	flagDir := filepath.Join(root, "flag")
	snap := filepath.Join(root, "snap")
	write(filepath.Join(snap, "prompts"), "pytorchjob.tmpl", "from configmap {{.Name}}")
	write(filepath.Join(snap, "prompts"), "rayjob.tmpl", "ray from configmap")
	write(filepath.Join(snap, "prompts"), "default.tmpl", "default from configmap {{.Kind}}")
	write(flagDir, "pytorchjob.tmpl", "from flag {{.Name}} {{template \"task\" .}}")
	write(flagDir, "pytorchjob.zh.tmpl", "中文 from flag {{.Name}}")

	tests := []struct {
		lang, kind, want string
	}{
		{"en", "PyTorchJob", "from flag bert-large-pretrain ## Task"},
		{"zh", "PyTorchJob", "中文 from flag bert-large-pretrain"},
		{"en", "RayJob", "ray from configmap"},
		{"en", "TFJob", "default from configmap TFJob"},
	}
	for _, tt := range tests {
		e := newTestExplainer(t, Config{BaseURL: "http://127.0.0.1:1/v1", Lang: tt.lang, PromptsDir: flagDir, SnapshotDirs: []string{snap}})
		rep := testReport()
		job := rep.Jobs[0]
		job.Kind = tt.kind
		_, user, err := e.Prompt(&job, rep)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(user, tt.want) {
			t.Errorf("%s %s: prompt %q, want prefix %q", tt.lang, tt.kind, firstLine(user), tt.want)
		}
	}

	// A snapshot given as a zip archive has its prompts/ read in place.
	archive := filepath.Join(root, "snap.zip")
	if err := os.WriteFile(archive, ziptest.Folder(t, snap, "snap"), 0o644); err != nil {
		t.Fatal(err)
	}
	e0 := newTestExplainer(t, Config{BaseURL: "http://127.0.0.1:1/v1", SnapshotDirs: []string{archive}})
	rep0 := testReport()
	job0 := rep0.Jobs[0]
	job0.Kind = "RayJob"
	if _, user, err := e0.Prompt(&job0, rep0); err != nil || !strings.HasPrefix(user, "ray from configmap") {
		t.Errorf("zip snapshot: prompt %q, %v; want its prompts/rayjob.tmpl", firstLine(user), err)
	}

	// Without overrides, kinds without a built-in template use default.
	e := newTestExplainer(t, Config{BaseURL: "http://127.0.0.1:1/v1", SnapshotDirs: []string{filepath.Join(root, "missing")}})
	rep := testReport()
	job := rep.Jobs[0]
	job.Kind = "XGBoostJob"
	_, user, err := e.Prompt(&job, rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(user, "Diagnose this distributed training job on Kubernetes (XGBoostJob") {
		t.Errorf("default prompt: %q", firstLine(user))
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestTemplateErrors(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"unknown field", "pytorchjob.tmpl", "Job: {{ .Name }}\nStatus: {{ .Nope }}\n", "pytorchjob.tmpl:2:11: executing"},
		{"unknown nested field", "trainjob.tmpl", "{{ range .Findings }}\n{{ .Titel }}{{ end }}", "trainjob.tmpl:2:3"},
		{"field of nil-able pointer", "rayjob.tmpl", "{{ .Primary.Nope }}", "rayjob.tmpl:1:11"},
		{"unknown metadata key", "pytorchjob.tmpl", "a\nb {{ index .Metadata \"JobNmae\" }}", `pytorchjob.tmpl:2:21: unknown Metadata key "JobNmae"`},
		{"unknown metadata key as field", "pytorchjob.tmpl", "{{ .Metadata.JobNmae }}", `map has no entry for key "JobNmae"`},
		{"syntax", "pytorchjob.tmpl", "line one\n{{ if .Name }}unclosed", "pytorchjob.tmpl:2: unexpected EOF"},
		{"unknown function", "pytorchjob.tmpl", "{{ shout .Name }}", `function "shout" not defined`},
		{"unknown block", "pytorchjob.tmpl", `{{ template "nope" . }}`, `template "nope" not defined`},
		{"unknown language", "pytorchjob.fr.tmpl", "x", `unknown language "fr"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := New(Config{PromptsDir: dir})
			if err == nil {
				t.Fatal("New accepted the template")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q, want it to name %s and contain %q", err, dir, tt.want)
			}
		})
	}
	if _, err := New(Config{PromptsDir: filepath.Join(t.TempDir(), "absent")}); err == nil {
		t.Error("a missing --prompts dir was accepted")
	}
}

func TestTemplatesUseEveryVariable(t *testing.T) {
	// A template that touches every documented variable loads and renders.
	body := `{{ range $k := .Metadata }}{{ $k }}{{ end }}
{{ index .Metadata "JobName" }} {{ index .Metadata "JobStatus" }} {{ index .Metadata "LauncherStatus" }}
{{ index .Metadata "MasterExpected" }} {{ index .Metadata "MasterCreatedCount" }} {{ index .Metadata "WorkerExpected" }}
{{ index .Metadata "WorkerCreatedCount" }} {{ index .Metadata "MasterDiagnosis" }} {{ index .Metadata "WorkerDiagnosis" }}
{{ .ErrorInfo }} {{ .EventInfo }} {{ .LogInfo }}
{{ .Kind }} {{ .APIVersion }} {{ .Namespace }} {{ .Name }} {{ .Phase }} {{ .KindPhase }} {{ .Language }} {{ .Summary }} {{ .CollectedAt }} {{ .Healthy }}
{{ with .Primary }}{{ .ID }} {{ .Title }} {{ .Message }} {{ .Remediation }} {{ .Primary }}{{ end }}
{{ range .Findings }}{{ .Category }} {{ .Severity }} {{ .Owner }} {{ .Layer }} {{ .Rule }} {{ join .Subjects ", " }} {{ .CausedBy }} {{ .Consequence }} {{ .FirstSeen }}
{{ range .Evidence }}{{ .Kind }} {{ .Source }} {{ .File }}:{{ .Line }} {{ .Time }} {{ .Count }} {{ fence .Text | indent 2 }}{{ end }}{{ end }}
{{ range .Replicas }}{{ .Type }} {{ .Expected }} {{ .Created }} {{ .Pending }} {{ .Running }} {{ .Succeeded }} {{ .Failed }} {{ .Restarts }}{{ end }}
{{ with .Progress }}{{ .LastStep }} {{ .TotalSteps }} {{ .Throughput }} {{ .LastLoss }} {{ .GPUUtilization }} {{ .CheckpointStep }}{{ end }}
{{ join .Nodes "," }} {{ join .Notes "," }} {{ oneline .Summary }}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pytorchjob.tmpl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newTestExplainer(t, Config{BaseURL: "http://127.0.0.1:1/v1", PromptsDir: dir})
	rep := testReport()
	for i := range rep.Jobs {
		if _, _, err := e.Prompt(&rep.Jobs[i], rep); err != nil {
			t.Errorf("%s: %v", rep.Jobs[i].Name, err)
		}
	}
	_, user, _ := e.Prompt(&rep.Jobs[0], rep)
	for _, want := range []string{"12000 100000 182.5 samples/s 2.31", "exec-oom-killed-1a2b Master was OOM-killed"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

func TestEventInfoGroupsRepeats(t *testing.T) {
	var tl []report.Entry
	for i := 0; i < 40; i++ {
		n := strconv.Itoa(i)
		tl = append(tl,
			report.Entry{Time: "2025-01-01T00:00:01Z", Kind: "event", Object: "PyTorchJob/j", Text: "Created pod: j-worker-" + n},
			report.Entry{Time: "2025-01-01T00:00:02Z", Kind: "pod", Object: "Pod/j-worker-" + n, Text: "created"})
	}
	tl = append(tl,
		report.Entry{Time: "2025-01-01T01:00:00Z", Kind: "container", Object: "Pod/j-worker-7", Text: "exit code 137", Warning: true},
		report.Entry{Time: "2025-01-01T01:00:01Z", Kind: "container", Object: "Pod/j-worker-1", Text: "exit code 1", Warning: true},
		report.Entry{Time: "2025-01-01T01:00:02Z", Kind: "container", Object: "Pod/j-worker-2", Text: "exit code 1", Warning: true},
		report.Entry{Time: "2025-01-01T01:00:03Z", Kind: "container", Object: "Pod/j-worker-9", Text: "exit code 137", Warning: true},
	)
	got := eventInfo(tl, "en")
	want := "```text\n" +
		"2025-01-01T00:00:01Z [event] PyTorchJob/j: Created pod: j-worker-0 (and 39 similar)\n" +
		"2025-01-01T00:00:02Z [pod] Pod/j-worker-0, Pod/j-worker-1, Pod/j-worker-2 and 37 more: created\n" +
		"2025-01-01T01:00:00Z [container WARNING] Pod/j-worker-7: exit code 137\n" +
		"2025-01-01T01:00:01Z..2025-01-01T01:00:02Z [container WARNING] Pod/j-worker-1, Pod/j-worker-2: exit code 1\n" +
		"2025-01-01T01:00:03Z [container WARNING] Pod/j-worker-9: exit code 137\n" +
		"```"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
