package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSettingsAreChecked(t *testing.T) {
	cases := []struct {
		name, data string
		opts       Options
		want       string // "" means valid
	}{
		{name: "a number", data: "settings:\n  thresholds:\n    stall_seconds: 600\n"},
		{name: "a quoted number", data: "settings:\n  thresholds:\n    stall_seconds: \"600\"\n", want: `d.yaml:3: settings.thresholds.stall_seconds must be a number`},
		{name: "a word", data: "settings:\n  thresholds:\n    stall_seconds: ten\n", want: `got the string "ten"`},
		{name: "a misspelled threshold", data: "settings:\n  thresholds:\n    stall_secs: 600\n", want: "d.yaml:3: settings.thresholds.stall_secs is not a threshold; did you mean stall_seconds?"},
		{name: "out of range", data: "settings:\n  thresholds:\n    gpu_idle_percent: 150\n", want: "gpu_idle_percent is 150, above its maximum 100"},
		{name: "below range", data: "settings:\n  thresholds:\n    stall_seconds: 0\n", want: "stall_seconds is 0, below its minimum 1"},
		{name: "a misspelled section", data: "settings:\n  threshold:\n    stall_seconds: 600\n", want: "settings.threshold is not a setting; did you mean thresholds?"},
		{name: "thresholds not a mapping", data: "settings:\n  thresholds: [600]\n", want: "settings.thresholds must be a mapping, got a list"},
		{name: "a rule switched off", data: "settings:\n  rules:\n    spec-no-shm: {enabled: false}\n"},
		{name: "an unknown rule", data: "settings:\n  rules:\n    spec-no-shmm: {enabled: false}\n", want: "settings.rules.spec-no-shmm: no rule has this id; did you mean spec-no-shm?"},
		{name: "a bad severity", data: "settings:\n  rules:\n    exec-nan-loss: {severity: urgent}\n", want: `settings.rules.exec-nan-loss.severity must be info, warning, error or critical, got the string "urgent"`},
		{name: "enabled as a string", data: "settings:\n  rules:\n    exec-nan-loss: {enabled: \"no\"}\n", want: "must be true or false"},
		{name: "an acknowledgement", data: "settings:\n  acknowledge:\n    - {rule: spec-no-shm, job: ml/train, reason: \"shm mounted by the runtime\"}\n"},
		{name: "an acknowledgement of an unknown rule", data: "settings:\n  acknowledge:\n    - {rule: spec-noshm}\n", want: "settings.acknowledge[0].rule spec-noshm: no rule has this id; did you mean spec-no-shm?"},
		{name: "an acknowledgement without a rule", data: "settings:\n  acknowledge:\n    - {job: ml/train}\n", want: "settings.acknowledge[0] needs a rule"},
		{name: "acknowledge not a list", data: "settings:\n  acknowledge: spec-no-shm\n", want: "settings.acknowledge must be a list"},
		{name: "other data for user rules", data: "my_rules:\n  buckets: [a, b]\n"},
		{name: "an unknown rule to run", opts: Options{Rules: []string{"exec-cuda-omm"}}, want: "--rules exec-cuda-omm: no rule has this id; did you mean exec-cuda-oom?"},
		{name: "an unknown rule to skip", opts: Options{SkipRules: []string{"nope"}}, want: "--skip-rules nope: no rule has this id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if tc.data != "" {
				f := filepath.Join(t.TempDir(), "d.yaml")
				if err := os.WriteFile(f, []byte(tc.data), 0o644); err != nil {
					t.Fatal(err)
				}
				opts.DataFiles = []string{f}
			}
			_, err := Load(context.Background(), opts)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("valid settings rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestRuleSettingsApply(t *testing.T) {
	f := filepath.Join(t.TempDir(), "d.yaml")
	data := "settings:\n  rules:\n    spec-no-shm: {enabled: false}\n    sched-insufficient-gpu: {severity: info}\n"
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	e := load(t, Options{DataFiles: []string{f}, SkipRules: []string{"pod-image-pull"}})
	for id, want := range map[string]bool{"spec-no-shm": false, "pod-image-pull": false, "exec-cuda-oom": true} {
		if r := ruleByID(e, id); r == nil || r.Enabled != want {
			t.Errorf("%s enabled = %v, want %v", id, r != nil && r.Enabled, want)
		}
	}
	if r := ruleByID(e, "sched-insufficient-gpu"); r.SeverityOverride != "info" {
		t.Errorf("severity override = %q", r.SeverityOverride)
	}
	only := load(t, Options{Rules: []string{"exec-cuda-oom"}})
	for _, r := range only.Rules() {
		if r.Enabled != (r.ID == "exec-cuda-oom") {
			t.Errorf("--rules exec-cuda-oom: %s enabled = %v", r.ID, r.Enabled)
		}
	}
}

func TestAcknowledgedByAnnotation(t *testing.T) {
	e := load(t, Options{})
	ann := map[string]string{AcknowledgeAnnotation: "spec-no-shm, exec-nan-loss"}
	for rule, want := range map[string]bool{"spec-no-shm": true, "exec-nan-loss": true, "exec-cuda-oom": false} {
		got, by := e.Acknowledged(rule, "ml", "train", ann)
		if got != want || (want && by != "annotation traindoc.dev/ignore") {
			t.Errorf("%s: acknowledged = %v by %q, want %v", rule, got, by, want)
		}
	}
	if got, _ := e.Acknowledged("spec-no-shm", "ml", "train", nil); got {
		t.Error("acknowledged without settings or annotation")
	}
}
