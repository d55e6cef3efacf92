package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/explain/explaintest"
)

const (
	llmTestFixture = "../../fixtures/seed-master-oom-137"
	// llmSecretFixture is a snapshot whose logs and events carry secrets
	// and a prompt injection.
	llmSecretFixture = "../../engine/explain/testdata/snapshot-secrets"
)

var llmSeededSecrets = []string{
	"hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890",
	"sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa",
	"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0cmFpbmVyIn0.c2lnbmF0dXJlMTIzNDU2",
	"Sup3r-S3cret-DB-pw",
	"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
}

// llmRun runs traindoc with the LLM environment cleared, so a developer's
// own OPENAI_API_KEY never reaches a test.
func llmRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	for _, e := range []string{envLLMBaseURL, envLLMModel, envLLMAPIKey, envOpenAIKey} {
		if _, set := os.LookupEnv(e); set {
			t.Setenv(e, "")
		}
	}
	var out, errb bytes.Buffer
	code = runWith(args, &out, &errb)
	return out.String(), errb.String(), code
}

func llmArgs(t *testing.T, srv *explaintest.Server, extra ...string) []string {
	return append([]string{"diagnose", "--snapshot", llmTestFixture, "--llm",
		"--llm-base-url", srv.URL(), "--llm-model", "test-model", "--llm-api-key", "sk-test-key",
		"--llm-cache", t.TempDir()}, extra...)
}

func TestDiagnoseLLMMarkdown(t *testing.T) {
	tests := []struct {
		lang  string
		mode  explaintest.Mode
		wants []string
	}{
		{"en", explaintest.JSON, []string{"Explanation by a language model", "test-model", "The primary finding shows the container of bert-large-pretrain exceeded its memory", "1. Lower the per-device batch size.", "**Healthy:** No", "**Error:** Replica of bert-large-pretrain ran out of memory."}},
		{"zh", explaintest.JSON, []string{"语言模型的解释", "test-model", "主要发现表明 bert-large-pretrain 的容器超出了内存", "1. 减小每个设备的 batch size。", "**健康：** 否", "**错误：** bert-large-pretrain 的副本内存不足。"}},
		{"en", explaintest.Text, []string{"Explanation by a language model", "The container exceeded its memory.", "2. Raise the memory limit of the replica."}},
		{"zh", explaintest.Text, []string{"语言模型的解释", "主要发现表明容器超出了内存。", "2. 提高内存上限。"}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			srv := explaintest.New(t, tt.mode)
			out, errs, code := llmRun(t, llmArgs(t, srv, "-o", "markdown", "--lang", tt.lang)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			for _, w := range tt.wants {
				if !strings.Contains(out, w) {
					t.Errorf("markdown lacks %q:\n%s", w, out)
				}
			}
			// The explanation comes after the findings.
			if f, x := strings.Index(out, "exec.oom-killed"), strings.Index(out, tt.wants[0]+"\n"); f < 0 || x < f {
				t.Errorf("explanation (at %d) is not after the findings (at %d)", x, f)
			}
			if !explaintest.Chinese(srv.Requests()[0].Chat) != (tt.lang == "en") {
				t.Errorf("the system prompt is not in %s", tt.lang)
			}
		})
	}
}

func TestDiagnoseLLMFailuresKeepTheReport(t *testing.T) {
	closedURL := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return "http://" + l.Addr().String() + "/v1"
	}()
	tests := []struct {
		name    string
		mode    explaintest.Mode
		extra   []string
		missing string
		failOn  bool
	}{
		{"server error", explaintest.ServerError, []string{"--llm-retries", "1"}, "HTTP 500", true},
		{"timeout", explaintest.Slow, []string{"--llm-timeout", "200ms"}, "timed out", true},
		{"garbage", explaintest.Garbage, nil, "not a chat completion", false},
		{"garbage answer", explaintest.GarbageAnswer, nil, "could not be read", false},
		{"refusal", explaintest.Refuse, nil, "refused", false},
		{"unreachable", explaintest.JSON, []string{"--llm-base-url", closedURL, "--llm-retries", "0"}, "could not be reached", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := explaintest.New(t, tt.mode)
			for _, format := range []string{"markdown", "json"} {
				args := append(llmArgs(t, srv, "-o", format), tt.extra...)
				out, errs, code := llmRun(t, args...)
				if code != 0 {
					t.Fatalf("-o %s: exit %d, want 0: %s", format, code, errs)
				}
				if !strings.Contains(out, "exec.oom-killed") {
					t.Errorf("-o %s: the rule findings are missing:\n%s", format, out)
				}
				// The note is in the report; apply also prints it to the
				// process's stderr, which runWith does not capture.
				if !strings.Contains(out, tt.missing) {
					t.Errorf("-o %s: %q not noted:\n%s", format, tt.missing, out)
				}
			}
			if !tt.failOn {
				return
			}
			// --fail-on decides the exit code, not the LLM.
			_, _, code := llmRun(t, append(llmArgs(t, srv, "--fail-on", "error"), tt.extra...)...)
			if code != exitFindings {
				t.Errorf("--fail-on error: exit %d, want %d", code, exitFindings)
			}
		})
	}
}

func TestDiagnoseLLMJSONAndCache(t *testing.T) {
	srv := explaintest.New(t, explaintest.JSON)
	cache := t.TempDir()
	args := []string{"diagnose", "--snapshot", llmTestFixture, "-o", "json", "--llm", "--llm-cache", cache}
	// Endpoint, model and key from the environment; OPENAI_API_KEY is the
	// fallback for the key.
	t.Setenv(envLLMBaseURL, srv.URL())
	t.Setenv(envLLMModel, "env-model")
	t.Setenv(envOpenAIKey, "sk-from-openai-env")
	var out, errb bytes.Buffer
	if code := runWith(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if reqs[0].Chat.Model != "env-model" || reqs[0].Header.Get("Authorization") != "Bearer sk-from-openai-env" {
		t.Errorf("model %q, auth %q", reqs[0].Chat.Model, reqs[0].Header.Get("Authorization"))
	}
	var rep struct {
		Jobs []struct {
			Name        string
			Explanation *struct {
				Model, Language, Healthy, Error, Analysis, Missing string
				Solution                                           []string
				Cached                                             bool
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	x := rep.Jobs[0].Explanation
	if x == nil || x.Model != "env-model" || x.Language != "en" || x.Healthy != "No" || x.Error == "" || len(x.Solution) != 3 || x.Cached {
		t.Fatalf("explanation %+v", x)
	}

	// Second run: same evidence, no request, served from the cache.
	out.Reset()
	if code := runWith(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("second run sent a request (%d in all)", n)
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if x := rep.Jobs[0].Explanation; x == nil || !x.Cached {
		t.Errorf("second run not cached: %+v", x)
	}
	// TRAINDOC_LLM_API_KEY wins over OPENAI_API_KEY, and a flag over both.
	t.Setenv(envLLMAPIKey, "sk-traindoc-env")
	runWith(append(args, "--llm-cache", "off"), &out, &errb)
	runWith(append(args, "--llm-cache", "off", "--llm-api-key", "sk-flag"), &out, &errb)
	reqs = srv.Requests()
	if len(reqs) != 3 || reqs[1].Header.Get("Authorization") != "Bearer sk-traindoc-env" || reqs[2].Header.Get("Authorization") != "Bearer sk-flag" {
		t.Errorf("key precedence: %d requests", len(reqs))
	}
}

func TestDiagnoseLLMOffByDefault(t *testing.T) {
	srv := explaintest.New(t, explaintest.JSON)
	t.Setenv(envLLMBaseURL, srv.URL())
	var out, errb bytes.Buffer
	if code := runWith([]string{"diagnose", "--snapshot", llmTestFixture, "-o", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if n := len(srv.Requests()); n != 0 || strings.Contains(out.String(), `"explanation"`) {
		t.Errorf("without --llm: %d requests", n)
	}
}

func TestDiagnoseLLMRedacts(t *testing.T) {
	srv := explaintest.New(t, explaintest.JSON)
	args := llmArgs(t, srv, "-o", "json")
	args[2] = llmSecretFixture
	out, errs, code := llmRun(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	user := reqs[0].Chat.User()
	if !strings.Contains(user, "ModuleNotFoundError") || !strings.Contains(user, "[REDACTED]") {
		t.Errorf("the prompt lacks the evidence or the redaction marks:\n%s", user)
	}
	var rep struct {
		Jobs []struct{ Explanation json.RawMessage }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Jobs) != 1 {
		t.Fatalf("report: %v", err)
	}
	for _, s := range llmSeededSecrets {
		if strings.Contains(string(reqs[0].Body), s) {
			t.Errorf("request body contains %q", s)
		}
		// The explanation is checked here; the findings and timeline are
		// the diagnosis's to redact.
		if strings.Contains(string(rep.Jobs[0].Explanation), s) {
			t.Errorf("explanation contains %q", s)
		}
	}
}

func TestPromptCommand(t *testing.T) {
	out, errs, code := llmRun(t, "prompt", "--snapshot", llmTestFixture, "--prompts", "../../examples/prompts")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{
		"===== PyTorchJob ml-research/bert-large-pretrain",
		"template: " + filepath.Join("../../examples/prompts", "pytorchjob.tmpl"),
		"----- system\n",
		"----- user\nYou are a Kubernetes + Kubeflow diagnostic expert...\nJob Name: bert-large-pretrain\nJob Status: Failed\n",
		"exec.oom-killed",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("prompt output lacks %q:\n%s", w, out)
		}
	}

	out, errs, code = llmRun(t, "prompt", "--snapshot", llmSecretFixture, "--lang", "zh", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rendered []struct {
		Template string
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal([]byte(out), &rendered); err != nil {
		t.Fatal(err)
	}
	if len(rendered) != 1 || len(rendered[0].Messages) != 2 || !strings.Contains(rendered[0].Messages[0].Content, "请用中文回答") {
		t.Errorf("json prompt: %s", out)
	}
	for _, s := range llmSeededSecrets {
		if strings.Contains(out, s) {
			t.Errorf("prompt contains %q", s)
		}
	}
}

func TestPromptCommandBadTemplate(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pytorchjob.tmpl"), []byte("Job: {{ index .Metadata \"JobName\" }}\n{{ .Nope }}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"prompt", "--snapshot", llmTestFixture, "--prompts", dir},
		{"diagnose", "--snapshot", llmTestFixture, "--llm", "--llm-base-url", "http://127.0.0.1:1/v1", "--prompts", dir},
	} {
		_, errs, code := llmRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, "pytorchjob.tmpl:2:") || !strings.Contains(errs, "Nope") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errs)
		}
	}
}
