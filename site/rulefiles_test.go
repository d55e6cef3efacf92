package site

import (
	"context"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/policy"
)

// The worked example on the rule catalogue is a working rule: it loads,
// its tests pass, and the catalogue shows its three files.
func TestExampleRuleWorks(t *testing.T) {
	ctx := context.Background()
	e, err := policy.Load(ctx, policy.Options{Dirs: []string{"example"}})
	if err != nil {
		t.Fatalf("the example rule does not load: %v", err)
	}
	results, err := e.RunTests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, r := range results {
		if !strings.Contains(r.Package, "storage.ckpt_throttled") {
			continue
		}
		ran++
		if r.Fail || r.Error != nil {
			t.Errorf("example test %s failed: %v", r.Name, r.Error)
		}
	}
	if ran != 2 {
		t.Errorf("%d example tests ran, want 2", ran)
	}
	var paths []string
	for _, f := range exampleRule() {
		paths = append(paths, f.Path)
	}
	if got := strings.Join(paths, " "); got != "my-rules/storage/ckpt_throttled/ckpt_throttled.rego my-rules/storage/ckpt_throttled/ckpt_throttled_test.rego my-rules/storage/ckpt_throttled/lines.yaml" {
		t.Errorf("example files = %s", got)
	}
}

// A built-in rule's page shows its lines.yaml and its tests, and its
// source with numbered lines.
func TestRulePageForAuthors(t *testing.T) {
	files, err := Render(reportsInput(t))
	if err != nil {
		t.Fatal(err)
	}
	page := string(files["en/rules/exec-cuda-oom.html"])
	for _, want := range []string{
		"Must match", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
		"Must not match", "pytorch/pytorch#121021",
		"test_fires_on_torch_oom", "policies/rules/exec/cuda_oom/cuda_oom_test.rego",
		`<span class="l" id="L1" data-n="1">`,
		"my-rules/exec/cuda_oom/cuda_oom.rego",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("rule page lacks %q", want)
		}
	}
	idx := string(files["zh/rules/index.html"])
	if !strings.Contains(idx, `id="write"`) || !strings.Contains(idx, "traindoc rules test --policies my-rules") {
		t.Error("the catalogue does not say how to write a rule")
	}
}

func TestNumberedLines(t *testing.T) {
	src := "package x\n\n# a comment\nr := `multi\nline` if { true }\n"
	lines := numberedLines(src)
	if len(lines) != 5 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	for i, l := range lines {
		if strings.Count(string(l), "<span") != strings.Count(string(l), "</span>") {
			t.Errorf("line %d has unbalanced spans: %s", i+1, l)
		}
	}
	if !strings.HasPrefix(string(lines[4]), `<span class="s">line`+"`") {
		t.Errorf("a raw string crossing lines is not reopened: %s", lines[4])
	}
}

// The search index holds what a reader pastes in: error text, exit codes,
// pods and nodes.
func TestSearchIndexesEvidence(t *testing.T) {
	files, err := Render(fixtureSiteInput(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range languages {
		idx := string(files["assets/search-index."+lang+".js"])
		for _, want := range []string{"DistBackendError", "exit 137", "OOMKilled", "llm70b-pt-worker-4", "ip-10-1-57-202.us-east-2.compute.internal"} {
			if !strings.Contains(idx, want) {
				t.Errorf("%s search index lacks %q", lang, want)
			}
		}
	}
}
