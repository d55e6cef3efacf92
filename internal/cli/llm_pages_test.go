package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/explain/explaintest"
)

// `report` and `site` take --llm like `diagnose`: the explanation reaches
// the per-job reports and the site's job pages, and an explanation saved
// in a JSON report reaches the pages without asking the model again.
func TestLLMReachesReportAndSite(t *testing.T) {
	srv := explaintest.New(t, explaintest.JSON)
	llm := []string{"--llm", "--llm-base-url", srv.URL(), "--llm-model", "test-model",
		"--llm-api-key", "sk-test-key", "--llm-cache", t.TempDir()}
	const want = "The primary finding shows the container of bert-large-pretrain exceeded its memory"

	reports := t.TempDir()
	_, errs, code := llmRun(t, append([]string{"report", "--snapshot", llmTestFixture, "--out", reports}, llm...)...)
	if code != 0 {
		t.Fatalf("report exit %d: %s", code, errs)
	}
	md, err := os.ReadFile(filepath.Join(reports, "ml-research", "bert-large-pretrain.en.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), want) {
		t.Errorf("report lacks the explanation:\n%s", md)
	}

	out := filepath.Join(t.TempDir(), "public")
	_, errs, code = llmRun(t, append([]string{"site", "--snapshot", llmTestFixture, "--out", out}, llm...)...)
	if code != 0 {
		t.Fatalf("site exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(out, "en", "jobs", "ml-research.bert-large-pretrain.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), want) {
		t.Error("site job page lacks the explanation")
	}
	asked := len(srv.Requests())

	// A saved report carries its explanation to the site on its own.
	saved, _, code := llmRun(t, append([]string{"diagnose", "--snapshot", llmTestFixture, "-o", "json"}, llm...)...)
	if code != 0 {
		t.Fatalf("diagnose exit %d", code)
	}
	runs := t.TempDir()
	if err := os.WriteFile(filepath.Join(runs, "run.json"), []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(t.TempDir(), "public")
	if _, errs, code := llmRun(t, "site", "--reports", runs, "--out", out2); code != 0 {
		t.Fatalf("site from reports exit %d: %s", code, errs)
	}
	page, err = os.ReadFile(filepath.Join(out2, "en", "jobs", "ml-research.bert-large-pretrain.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), want) {
		t.Error("a saved explanation is missing from the site built from reports")
	}
	if n := len(srv.Requests()); n > asked+1 {
		t.Errorf("the model was asked %d more times, want at most 1 (the diagnose run)", n-asked)
	}
}
