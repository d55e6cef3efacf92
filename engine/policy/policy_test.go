package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T, opts Options) *Engine {
	t.Helper()
	e, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func ruleByID(e *Engine, id string) *Rule {
	for _, r := range e.Rules() {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func TestBuiltinCatalogue(t *testing.T) {
	e := load(t, Options{})
	r := ruleByID(e, "sched-insufficient-gpu")
	if r == nil {
		t.Fatal("built-in rule sched-insufficient-gpu missing")
	}
	if r.Layer != "control" || !r.Builtin || r.Title.Zh == "" || !strings.Contains(r.Source, "package traindoc.rules.sched.insufficient_gpu") {
		t.Errorf("rule = %+v", r)
	}
	msg := r.RenderMessage(map[string]any{"pods": 3, "resource": "nvidia.com/gpu", "detail": "{{.pods}} <script>"})
	if !strings.Contains(msg.En, "3 pod(s)") || !strings.Contains(msg.En, "{{.pods}} <script>") || !strings.Contains(msg.Zh, "3 个 Pod") {
		t.Errorf("message = %+v (parameter values must be inserted as data, not run as templates)", msg)
	}
	if !e.Explains("exec.cuda-oom", "exec.nccl-timeout") || e.Explains("exec.nccl-timeout", "exec.cuda-oom") {
		t.Error("causal relation not loaded from the taxonomy")
	}
}

func TestOverride(t *testing.T) {
	for _, dir := range []string{"override_pkg"} {
		t.Run(dir, func(t *testing.T) {
			e := load(t, Options{Dirs: []string{filepath.Join("testdata", dir)}})
			if len(e.Overridden) != 1 {
				t.Errorf("overridden = %q", e.Overridden)
			}
			fs, problems, err := e.Eval(context.Background(), map[string]any{"name": "x", "pods": []any{}, "events": []any{}})
			if err != nil || len(problems) > 0 {
				t.Fatal(err, problems)
			}
			n := 0
			for i := range fs {
				if e.RuleOf(&fs[i]).Category == "sched.insufficient-gpu" {
					n++
					if e.RuleOf(&fs[i]).Builtin {
						t.Errorf("finding from the built-in rule, which was overridden")
					}
				}
			}
			if n != 1 {
				t.Errorf("findings of the overriding rule = %d, want 1", n)
			}
		})
	}
}

func TestBrokenUserPolicy(t *testing.T) {
	for dir, want := range map[string]string{
		"broken": "testdata/broken/bad.rego:6: rego_parse_error",
		"nometa": "rule.rego:1: rule traindoc.rules.site.nometa: missing # METADATA",
		// The id comes from the package path; a custom.id that disagrees
		// with it would make one rule answer to two names.
		"idmismatch": `custom.id "sched-insufficient-gpu" differs from "site-gpu"`,
		"badshape":   "gpu.rego:14: package traindoc.rules.site.gpu.extra: rules must be",
		"otherpkg":   "gpu.rego:1: package mycompany.rules.gpu is never evaluated",
	} {
		_, err := Load(context.Background(), Options{Dirs: []string{filepath.Join("testdata", dir)}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to name %q", dir, err, want)
		}
	}
	if _, err := Load(context.Background(), Options{Dirs: []string{"testdata/nope"}}); err == nil {
		t.Error("missing policy directory: want error")
	}
}

func TestUserRuleWithSignatureAndTests(t *testing.T) {
	e := load(t, Options{Dirs: []string{"testdata/addrule"}})
	found := false
	for _, s := range e.Signatures {
		if s["id"] == "site.s3-slowdown" {
			found = true
		}
	}
	if !found {
		t.Error("the user rule's signature is not declared to the scanner")
	}
	if r := ruleByID(e, "site-s3-slowdown"); r == nil || r.Builtin || r.Title.Zh != "检查点存储被限流" {
		t.Errorf("user rule = %+v", r)
	}
	results, err := e.RunTests(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pass, fail := map[string]bool{}, map[string]bool{}
	for _, r := range results {
		if r.Pass() {
			pass[r.Name] = true
		} else {
			fail[r.Name] = true
		}
	}
	if !pass["test_fires"] || !pass["test_quiet"] || !fail["test_deliberately_failing"] {
		t.Errorf("pass = %v, fail = %v", pass, fail)
	}
}

func TestThresholdData(t *testing.T) {
	f := filepath.Join(t.TempDir(), "thresholds.yaml")
	if err := os.WriteFile(f, []byte("settings:\n  thresholds:\n    stall_seconds: 60\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := load(t, Options{DataFiles: []string{f}})
	v, err := e.evalOnce(context.Background(), "data.traindoc.lib.config.thresholds")
	if err != nil {
		t.Fatal(err)
	}
	th := v.(map[string]any)
	if th["stall_seconds"] == nil || th["stall_seconds"].(interface{ String() string }).String() != "60" || th["pending_seconds"] == nil {
		t.Errorf("thresholds = %v", th)
	}
}
