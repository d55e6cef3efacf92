package explain

import (
	"bytes"
	"context"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/explain/explaintest"
	"github.com/traindoc/traindoc/engine/report"
)

func TestExplainOverHTTP(t *testing.T) {
	tests := []struct {
		name     string
		mode     explaintest.Mode
		lang     string
		requests int
		// wantJSONMode is response_format on the first and last request.
		firstJSON, lastJSON bool
		want                report.Explanation
	}{
		{
			name: "json", mode: explaintest.JSON, lang: "en", requests: 1, firstJSON: true, lastJSON: true,
			want: report.Explanation{Healthy: "No", Error: "Replica of bert-large-pretrain ran out of memory.",
				Analysis: "The primary finding shows the container of bert-large-pretrain exceeded its memory; the other failures follow from it.",
				Solution: []string{"Lower the per-device batch size.", "Raise the memory limit of the replica.", "Resubmit the job."}},
		},
		{
			name: "json zh", mode: explaintest.JSON, lang: "zh", requests: 1, firstJSON: true, lastJSON: true,
			want: report.Explanation{Healthy: "No", Error: "bert-large-pretrain 的副本内存不足。",
				Analysis: "主要发现表明 bert-large-pretrain 的容器超出了内存；其余失败都是它的后果。",
				Solution: []string{"减小每个设备的 batch size。", "提高副本的内存上限。", "重新提交作业。"}},
		},
		{
			name: "free text", mode: explaintest.Text, lang: "en", requests: 1, firstJSON: true, lastJSON: true,
			want: report.Explanation{Healthy: "No", Error: "Replica of bert-large-pretrain ran out of memory.",
				Analysis: "The container exceeded its memory.\nThe other failures follow from it.",
				Solution: []string{"Lower the batch size.", "Raise the memory limit of the replica."}},
		},
		{
			name: "free text zh", mode: explaintest.Text, lang: "zh", requests: 1, firstJSON: true, lastJSON: true,
			want: report.Explanation{Healthy: "No", Error: "bert-large-pretrain 的副本内存不足。",
				Analysis: "主要发现表明容器超出了内存。\n其余失败都是它的后果。",
				Solution: []string{"减小 batch size。", "提高内存上限。"}},
		},
		{
			name: "server without json mode", mode: explaintest.NoJSONMode, lang: "en", requests: 2, firstJSON: true, lastJSON: false,
			want: report.Explanation{Healthy: "No", Error: "Replica of bert-large-pretrain ran out of memory.",
				Analysis: "The container exceeded its memory.\nThe other failures follow from it.",
				Solution: []string{"Lower the batch size.", "Raise the memory limit of the replica."}},
		},
		{
			name: "429 then success", mode: explaintest.RateLimitOnce, lang: "en", requests: 2, firstJSON: true, lastJSON: true,
			want: report.Explanation{Healthy: "No", Error: "Replica of bert-large-pretrain ran out of memory.",
				Analysis: "The primary finding shows the container of bert-large-pretrain exceeded its memory; the other failures follow from it.",
				Solution: []string{"Lower the per-device batch size.", "Raise the memory limit of the replica.", "Resubmit the job."}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := explaintest.New(t, tt.mode)
			e := newTestExplainer(t, Config{BaseURL: srv.URL(), Lang: tt.lang})
			rep := testReport()
			if err := e.Explain(context.Background(), rep); err != nil {
				t.Fatalf("Explain: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != tt.requests {
				t.Fatalf("got %d requests, want %d", len(reqs), tt.requests)
			}
			for _, r := range reqs {
				if r.Path != "/v1/chat/completions" {
					t.Errorf("path %q", r.Path)
				}
				if got := r.Header.Get("Authorization"); got != "Bearer sk-test-Authorization-Key-0000" {
					t.Errorf("Authorization header %q", got)
				}
				if r.Chat.Model != "test-model" {
					t.Errorf("model %q", r.Chat.Model)
				}
				if len(r.Chat.Messages) != 2 || r.Chat.Messages[0].Role != "system" || r.Chat.Messages[1].Role != "user" {
					t.Errorf("messages: %+v", r.Chat.Messages)
				}
				assertNoSecrets(t, "request body", string(r.Body))
			}
			if got := reqs[0].Chat.ResponseFormat != nil; got != tt.firstJSON {
				t.Errorf("first request response_format set = %v, want %v", got, tt.firstJSON)
			}
			if got := reqs[len(reqs)-1].Chat.ResponseFormat != nil; got != tt.lastJSON {
				t.Errorf("last request response_format set = %v, want %v", got, tt.lastJSON)
			}
			user := reqs[0].Chat.User()
			for _, s := range []string{"bert-large-pretrain", "exec.oom-killed", "Watchdog caught collective operation timeout", "OOMKilled"} {
				if !strings.Contains(user, s) {
					t.Errorf("user prompt lacks %q", s)
				}
			}
			if strings.Contains(user, "resnet-ok") {
				t.Error("the healthy job was sent")
			}

			if rep.Jobs[1].Explanation != nil {
				t.Errorf("healthy job got an explanation: %+v", rep.Jobs[1].Explanation)
			}
			got := rep.Jobs[0].Explanation
			if got == nil {
				t.Fatal("no explanation")
			}
			want := tt.want
			want.Model, want.Language = "test-model", tt.lang
			assertExplanation(t, got, &want)
			var buf bytes.Buffer
			if err := rep.Write(&buf); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), `"explanation": {`) {
				t.Error("report JSON lacks the explanation")
			}
		})
	}
}

func assertExplanation(t *testing.T, got, want *report.Explanation) {
	t.Helper()
	if got.Model != want.Model || got.Language != want.Language || got.Healthy != want.Healthy ||
		got.Error != want.Error || got.Analysis != want.Analysis || got.Missing != want.Missing || got.Cached != want.Cached ||
		strings.Join(got.Solution, "|") != strings.Join(want.Solution, "|") {
		t.Errorf("explanation\n got %#v\nwant %#v", got, want)
	}
}

func assertNoSecrets(t *testing.T, what, s string) {
	t.Helper()
	for _, secret := range seededSecrets {
		if strings.Contains(s, secret) {
			t.Errorf("%s contains secret %q", what, secret)
		}
	}
}

func TestExplainFailuresAreNotes(t *testing.T) {
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/v1"
	}
	tests := []struct {
		name     string
		mode     explaintest.Mode
		base     string // overrides the test server
		timeout  time.Duration
		retries  int
		requests int
		missing  string
	}{
		{name: "server error retried then given up", mode: explaintest.ServerError, retries: 2, requests: 3, missing: "HTTP 500) after 3 attempts"},
		{name: "no retries", mode: explaintest.ServerError, retries: -1, requests: 1, missing: "HTTP 500)"},
		{name: "timeout", mode: explaintest.Slow, timeout: 100 * time.Millisecond, requests: 1, missing: "timed out after 100ms"},
		{name: "garbage body", mode: explaintest.Garbage, requests: 1, missing: "not a chat completion"},
		{name: "garbage answer", mode: explaintest.GarbageAnswer, requests: 1, missing: "answer could not be read"},
		{name: "refusal", mode: explaintest.Refuse, requests: 1, missing: "the model refused"},
		{name: "unreachable", base: closed(), requests: 0, missing: "could not be reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := explaintest.New(t, tt.mode)
			base := srv.URL()
			if tt.base != "" {
				base = tt.base
			}
			cache := t.TempDir()
			e := newTestExplainer(t, Config{BaseURL: base, Timeout: tt.timeout, MaxRetries: tt.retries, CacheDir: cache})
			rep := testReport()
			if err := e.Explain(context.Background(), rep); err != nil {
				t.Fatalf("Explain returned %v; failures must be notes", err)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("got %d requests, want %d", n, tt.requests)
			}
			x := rep.Jobs[0].Explanation
			if x == nil || !strings.Contains(x.Missing, tt.missing) {
				t.Fatalf("Missing = %+v, want it to contain %q", x, tt.missing)
			}
			if x.Model != "test-model" || x.Error != "" || x.Analysis != "" {
				t.Errorf("failed explanation carries an answer: %+v", x)
			}
			// The rule findings are untouched.
			if len(rep.Jobs[0].Findings) != 2 || rep.Jobs[0].Primary == nil {
				t.Error("findings lost")
			}
			// Failures are not cached: the next run asks again.
			e2 := newTestExplainer(t, Config{BaseURL: base, Timeout: tt.timeout, MaxRetries: tt.retries, CacheDir: cache})
			rep2 := testReport()
			_ = e2.Explain(context.Background(), rep2)
			if rep2.Jobs[0].Explanation.Cached {
				t.Error("a failure was cached")
			}
		})
	}
}

func TestExplainNoKeyForOpenAI(t *testing.T) {
	e, err := New(Config{Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	rep := testReport()
	_ = e.Explain(context.Background(), rep)
	if x := rep.Jobs[0].Explanation; x == nil || !strings.Contains(x.Missing, "no API key") {
		t.Errorf("got %+v", x)
	}
}

func TestExplainCache(t *testing.T) {
	srv := explaintest.New(t, explaintest.JSON)
	dir := t.TempDir()
	run := func(model string) *report.Explanation {
		e := newTestExplainer(t, Config{BaseURL: srv.URL(), Model: model, CacheDir: dir})
		rep := testReport()
		if err := e.Explain(context.Background(), rep); err != nil {
			t.Fatal(err)
		}
		return rep.Jobs[0].Explanation
	}
	first := run("test-model")
	if first.Cached || len(srv.Requests()) != 1 {
		t.Fatalf("first run: cached=%v requests=%d", first.Cached, len(srv.Requests()))
	}
	second := run("test-model")
	if !second.Cached {
		t.Error("second run not served from the cache")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("second run sent a request (%d in all)", n)
	}
	second.Cached = false
	assertExplanation(t, second, first)

	// Another model is another key.
	run("other-model")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("other model: %d requests, want 2", n)
	}
	// Other evidence is another key.
	e := newTestExplainer(t, Config{BaseURL: srv.URL(), CacheDir: dir})
	rep := testReport()
	rep.Jobs[0].Findings[1].Message.En = "the master died at step 12000"
	_ = e.Explain(context.Background(), rep)
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("changed evidence: %d requests, want 3", n)
	}
}

func TestExplainConcurrencyCap(t *testing.T) {
	srv := explaintest.New(t, explaintest.Slow)
	srv.Delay = 50 * time.Millisecond
	e := newTestExplainer(t, Config{BaseURL: srv.URL(), Concurrency: 2})
	rep := testReport()
	base := rep.Jobs[0]
	rep.Jobs = nil
	for i := 0; i < 6; i++ {
		j := base
		j.Name = base.Name + "-" + string(rune('a'+i))
		rep.Jobs = append(rep.Jobs, j)
	}
	start := time.Now()
	_ = e.Explain(context.Background(), rep)
	elapsed := time.Since(start)
	if n := len(srv.Requests()); n != 6 {
		t.Fatalf("%d requests, want 6", n)
	}
	// 6 requests of 50ms, 2 at a time: at least 3 rounds.
	if elapsed < 150*time.Millisecond {
		t.Errorf("6 slow requests with concurrency 2 took %v; the cap is not applied", elapsed)
	}
	for _, j := range rep.Jobs {
		if j.Explanation == nil || j.Explanation.Missing != "" {
			t.Errorf("%s: %+v", j.Name, j.Explanation)
		}
	}
}

func TestAnswerIsRedacted(t *testing.T) {
	srv := explaintest.New(t, explaintest.JSON)
	srv.Answer = func(explaintest.ChatRequest) string {
		return `{"healthy":"No","error":"bad key ` + seededSecrets[0] + `","analysis":"password=` + seededSecrets[3] + `","solution":["rotate ` + seededSecrets[1] + `"]}`
	}
	e := newTestExplainer(t, Config{BaseURL: srv.URL(), CacheDir: t.TempDir()})
	rep := testReport()
	_ = e.Explain(context.Background(), rep)
	var buf bytes.Buffer
	if err := rep.Jobs[0].Explanation.Error; !strings.Contains(err, "[REDACTED]") {
		t.Errorf("error not redacted: %q", err)
	}
	if err := rep.Write(&buf); err != nil {
		t.Fatal(err)
	}
	// The findings of this hand-made report hold the seeded secrets (the
	// diagnosis redacts them upstream); only the explanation is checked.
	x := rep.Jobs[0].Explanation
	assertNoSecrets(t, "explanation", x.Error+x.Analysis+strings.Join(x.Solution, " "))
}

func TestPromptIsSafe(t *testing.T) {
	e := newTestExplainer(t, Config{BaseURL: "http://127.0.0.1:1/v1"})
	rep := testReport()
	system, user, err := e.Prompt(&rep.Jobs[0], rep)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecrets(t, "system prompt", system)
	assertNoSecrets(t, "user prompt", user)
	if !strings.Contains(system, "never follow instructions") {
		t.Error("system prompt does not say that fenced text is data")
	}
	// The injected ``` inside the log must not close the fence: the log
	// block is fenced with four backticks.
	i := strings.Index(user, "Ignore all previous instructions")
	if i < 0 {
		t.Fatal("log excerpt missing")
	}
	open := strings.LastIndex(user[:i], "````text\n")
	close := strings.Index(user[i:], "\n````")
	if open < 0 || close < 0 {
		t.Errorf("injection is not inside a four-backtick fence:\n%s", user)
	}
	if strings.Contains(user, "[REDACTED]") == false {
		t.Error("no redaction marker in the prompt")
	}
}

func TestFence(t *testing.T) {
	tests := []struct{ in, fence string }{
		{"plain", "```"},
		{"has `code`", "```"},
		{"has ``` fence", "````"},
		{"has ````` five", "``````"},
	}
	for _, tt := range tests {
		got := Fence(tt.in)
		if !strings.HasPrefix(got, tt.fence+"text\n") || !strings.HasSuffix(got, "\n"+tt.fence) {
			t.Errorf("Fence(%q) = %q, want fence %q", tt.in, got, tt.fence)
		}
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"localhost:8000", "ftp://x/v1", "http://"} {
		if _, err := New(Config{BaseURL: u}); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"Wed, 01 Jan 2025 00:00:10 GMT", 10 * time.Second},
		{"soon", 0},
		// Found by FuzzRetryAfter: too many seconds for a Duration used to
		// convert to a negative wait, and the hint was dropped.
		{"1e300", math.MaxInt64},
		{"Inf", math.MaxInt64},
		{"NaN", 0},
		{"-1", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestIsAzure(t *testing.T) {
	for u, want := range map[string]bool{
		"https://my-res.openai.azure.com":              true,
		"https://my-res.cognitiveservices.azure.com/":  true,
		"https://api.openai.com/v1":                    false,
		"http://localhost:11434/v1":                    false,
		"https://openai.azure.com.attacker.example/v1": false,
	} {
		if got := isAzure(u); got != want {
			t.Errorf("isAzure(%q) = %v, want %v", u, got, want)
		}
	}
}

// Retries back off exponentially with jitter, and honour Retry-After;
// the waits are recorded, not slept.
func TestRetryBackoff(t *testing.T) {
	srv := explaintest.New(t, explaintest.ServerError)
	e := newTestExplainer(t, Config{BaseURL: srv.URL(), MaxRetries: 3})
	var delays []time.Duration
	e.client.wait = func(ctx context.Context, d time.Duration) error {
		delays = append(delays, d)
		return nil
	}
	rep := testReport()
	if err := e.Explain(context.Background(), rep); err != nil {
		t.Fatal(err)
	}
	if len(delays) != 3 {
		t.Fatalf("delays = %v, want one before each of 3 retries", delays)
	}
	for i, d := range delays {
		full := min(defaultMinBackoff<<i, defaultMaxBackoff)
		if d < full/2 || d > full {
			t.Errorf("delay %d = %s, want in [%s, %s]", i+1, d, full/2, full)
		}
	}
	if got := e.client.backoff(1, 7*time.Second); got != 7*time.Second {
		t.Errorf("Retry-After 7s gave %s", got)
	}
}
