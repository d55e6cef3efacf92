package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"healthy job", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded"}, 0, "ml-research/mnist-ddp", ""},
		{"failing job without a gate", []string{"diagnose", "--snapshot", "../../fixtures/seed-master-oom-137"}, 0, "exec.oom-killed", ""},
		{"gate trips", []string{"diagnose", "--snapshot", "../../fixtures/seed-master-oom-137", "--fail-on", "error"}, 1, "exec.oom-killed", ""},
		{"gate above every finding", []string{"diagnose", "--snapshot", "../../fixtures/seed-master-oom-137", "--fail-on", "critical"}, 0, "", ""},
		{"no snapshot and no cluster", []string{"diagnose", "--kubeconfig", "testdata/nope.kubeconfig"}, 2, "", "give --snapshot DIR"},
		{"missing snapshot", []string{"diagnose", "--snapshot", "testdata/nope"}, 2, "", "testdata/nope"},
		{"bad gate", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded", "--fail-on", "loud"}, 2, "", "--fail-on"},
		{"bad format", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded", "-o", "pdf"}, 2, "", "-o \"pdf\""},
		{"unknown job", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded", "nope/nope"}, 2, "", "no job \"nope/nope\""},
		{"unknown flag", []string{"diagnose", "--frobnicate"}, 2, "", "unknown flag"},
		{"malformed file is a warning", []string{"diagnose", "--snapshot", "../../fixtures/malformed-file"}, 0, "broken.yaml: line", ""},
		{"broken user policy", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded", "--policies", "../../engine/policy/testdata/broken"}, 2, "", "bad.rego:6"},
		{"empty snapshot is an error", []string{"diagnose", "--snapshot", "testdata/empty-snapshot", "--fail-on", "info"}, 2, "", "no training job found in snapshot testdata/empty-snapshot"},
		{"empty snapshot accepted when asked", []string{"diagnose", "--snapshot", "testdata/empty-snapshot", "--allow-empty", "--fail-on", "info"}, 0, "", ""},
		{"job matching nothing across snapshots", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded", "--snapshot", "../../fixtures/exec-cuda-oom", "nope"}, 2, "", `no job "nope"`},
		{"healthy verdict never trips the gate", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded", "--fail-on", "info"}, 0, "", ""},
		{"table shows snapshot warnings", []string{"diagnose", "--snapshot", "../../fixtures/malformed-file", "-o", "table"}, 0, "broken.yaml: line", ""},
		{"junit without a gate fails nothing, like the exit code", []string{"diagnose", "--snapshot", "../../fixtures/seed-master-oom-137", "-o", "junit"}, 0, `failures="0"`, ""},
		{"junit with a gate fails what the exit code fails", []string{"diagnose", "--snapshot", "../../fixtures/seed-master-oom-137", "-o", "junit", "--fail-on", "error"}, 1, `<testsuites name="traindoc" tests="1" failures="1"`, ""},
		{"a quoted threshold is an error, not a silent switch-off", []string{"diagnose", "--snapshot", "../../fixtures/progress-stalled", "--data", "testdata/settings/quoted.yaml", "--fail-on", "warning"}, 2, "", "quoted.yaml:3: settings.thresholds.stall_seconds must be a number"},
		{"a misspelled threshold gets a suggestion", []string{"diagnose", "--snapshot", "../../fixtures/progress-stalled", "--data", "testdata/settings/misspelled.yaml"}, 2, "", "did you mean stall_seconds?"},
		{"rules list shows a rule switched off for the run", []string{"rules", "list", "--skip-rules", "spec-no-shm"}, 0, "spec-no-shm                   disabled", ""},
		{"evidence missing is partial", []string{"diagnose", "--snapshot", "../../fixtures/pod-evicted"}, 3, "", ""},
		{"the gate wins over partial", []string{"diagnose", "--snapshot", "../../fixtures/pod-evicted", "--fail-on", "warning"}, 1, "", ""},
		{"snapshot without a cluster names only its own flags", []string{"snapshot", "-o", "testdata/never-written", "--kubeconfig", "testdata/nope.kubeconfig"}, 2, "", "give --kubeconfig and --context"},
		{"a mistyped flag gets a suggestion", []string{"diagnose", "--snapshot", "../../fixtures/seed-succeeded", "--fail-onn", "error"}, 2, "", "did you mean --fail-on?"},
		{"a flag of another command is not suggested", []string{"rules", "list", "--fail-on", "error"}, 2, "", "unknown flag: --fail-on (see traindoc rules list --help)"},
		{"extra arguments are errors", []string{"rules", "list", "extra"}, 2, "", "unknown command \"extra\""},
		{"a bad format fails before any work", []string{"diagnose", "--snapshot", "testdata/nope", "-o", "xml"}, 2, "", "-o"},
		{"rule tests fail", []string{"rules", "test", "--policies", "../../engine/policy/testdata/addrule"}, 1, "test_deliberately_failing", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := runWith(tc.args, &out, &errb)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out.String())
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
		})
	}
}

func TestJSONShape(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runWith([]string{"diagnose", "--snapshot", "../../fixtures/seed-master-oom-137", "-o", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep struct {
		SchemaVersion string   `json:"schemaVersion"`
		CollectedAt   string   `json:"collectedAt"`
		Warnings      []string `json:"warnings"`
		Jobs          []struct {
			Kind, APIVersion, Namespace, Name, Phase string
			Healthy                                  bool
			Primary                                  struct {
				Rule, Category, Layer, Severity, Owner string
				Title, Message, Remediation            struct{ En, Zh string }
				Evidence                               []struct{ Source, Text string }
			}
			Findings []json.RawMessage
			Replicas []json.RawMessage
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.SchemaVersion != "traindoc.report/v1" || rep.CollectedAt == "" || rep.Warnings == nil || len(rep.Jobs) != 1 {
		t.Fatalf("report = %+v", rep)
	}
	j := rep.Jobs[0]
	p := j.Primary
	if j.Kind != "PyTorchJob" || j.APIVersion != "kubeflow.org/v1" || j.Healthy || p.Category != "exec.oom-killed" || p.Layer != "execution" ||
		p.Title.En == "" || p.Title.Zh == "" || p.Remediation.Zh == "" || len(p.Evidence) == 0 || p.Owner == "" || len(j.Replicas) == 0 {
		t.Errorf("job = %+v", j)
	}
}
