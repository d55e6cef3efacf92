// Package explain asks an OpenAI-compatible language model (OpenAI, Azure
// OpenAI, vLLM, Ollama, LocalAI, ...) to explain the rule findings of each
// unhealthy job in a report, in the Healthy / Error / Analysis / Solution
// form, and stores the answer in report.Job.Explanation.
//
// The step is optional and must never cost the user the rule-based report:
// a timeout, a refusal, an HTTP error or an answer that cannot be read
// leaves Explanation.Missing saying why, and Explain still returns nil.
//
// Everything taken from the job is redacted (package redact) before it is
// put in a prompt, logs and events are fenced, and the system prompt tells
// the model that fenced text is data, not instructions.
package explain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/regfile"
)

// Defaults for Config's zero values.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultModel       = "gpt-4o-mini"
	DefaultTimeout     = 60 * time.Second
	DefaultMaxRetries  = 3
	DefaultConcurrency = 4
)

// Config configures an Explainer.
type Config struct {
	// BaseURL is the OpenAI-compatible API base, e.g.
	// http://localhost:11434/v1 (Ollama), http://vllm:8000/v1, or
	// https://NAME.openai.azure.com (Azure OpenAI, Model is then the
	// deployment name).
	BaseURL string
	Model   string
	APIKey  string
	// Timeout bounds each request.
	Timeout time.Duration
	// MaxRetries is how many times a request is repeated after a 429, a 5xx
	// or a dropped connection; 0 means DefaultMaxRetries, negative none.
	MaxRetries int
	// Concurrency caps requests in flight.
	Concurrency int
	// CacheDir holds cached explanations; empty disables the cache.
	CacheDir string
	// PromptsDir holds override templates <kind>.tmpl or
	// <kind>.<lang>.tmpl; it must exist when set.
	PromptsDir string
	// SnapshotDirs are the snapshots the report was read from. Their
	// prompts/ folders (saved from the cluster's prompt ConfigMap) also
	// override the built-in templates, below PromptsDir; the first snapshot
	// wins when several hold a template for the same kind.
	SnapshotDirs []string
	// Lang is the report language, "en" or "zh".
	Lang string
	// HTTPClient replaces the default HTTP client (proxies, custom CAs).
	HTTPClient *http.Client
}

// Explainer explains reports. It is safe for concurrent use.
type Explainer struct {
	cfg       Config
	templates *templates
	client    *chatClient
	cache     cache
	// endpoint identifies the server in cache keys, without credentials.
	endpoint string
}

// New checks cfg and loads the prompt templates. An invalid template is an
// error naming its file and line.
func New(cfg Config) (*Explainer, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("LLM base URL %q: want http(s)://host[:port]/path", redact.String(cfg.BaseURL))
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	cfg.Lang = normLang(cfg.Lang)

	var dirs []promptDir
	if cfg.PromptsDir != "" {
		dirs = append(dirs, promptDir{fsys: regfile.DirFS(cfg.PromptsDir), dir: ".", label: cfg.PromptsDir})
	}
	for _, s := range cfg.SnapshotDirs {
		if s == "" {
			continue
		}
		// A snapshot may be a zip archive: its prompts/ is read in place.
		fsys, closer, _, err := snapshot.Open(s)
		if errors.Is(err, fs.ErrNotExist) {
			continue // diagnosing it says so
		}
		if err != nil {
			return nil, fmt.Errorf("prompt templates: %w", err)
		}
		if closer != nil {
			defer closer.Close() // the templates are read whole below
		}
		dirs = append(dirs, promptDir{fsys: fsys, dir: "prompts", label: path.Join(filepath.ToSlash(s), "prompts"), optional: true})
	}
	ts, err := loadTemplates(dirs)
	if err != nil {
		return nil, err
	}
	ep := *u
	ep.User = nil
	return &Explainer{
		cfg:       cfg,
		templates: ts,
		client:    newChatClient(cfg),
		cache:     cache{dir: cfg.CacheDir},
		endpoint:  ep.String(),
	}, nil
}

// DefaultCacheDir is <user cache dir>/traindoc/llm, or "" when the system
// has no user cache directory.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "traindoc", "llm")
}

// Prompt renders the system and user prompts for job without sending
// anything. rep supplies report-wide facts (collection time) and may be nil.
func (e *Explainer) Prompt(job *report.Job, rep *report.Report) (system, user string, err error) {
	return e.templates.render(job, rep, e.cfg.Lang)
}

// TemplateSource says which template renders jobs of kind: a file path or
// "built-in <lang>/<file>".
func (e *Explainer) TemplateSource(kind string) string {
	kind = strings.ToLower(kind)
	if s, ok := e.templates.source[e.cfg.Lang][kind]; ok {
		return s
	}
	return e.templates.source[e.cfg.Lang][defaultKind]
}

// Explain fills Explanation for every unhealthy job of rep, several at a
// time. Healthy jobs are not sent. Model and HTTP failures become
// Explanation.Missing; the error is only for misuse.
func (e *Explainer) Explain(ctx context.Context, rep *report.Report) error {
	if rep == nil {
		return errors.New("explain: nil report")
	}
	var wg sync.WaitGroup
	for i := range rep.Jobs {
		job := &rep.Jobs[i]
		if job.Healthy {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			job.Explanation = e.explainJob(ctx, job, rep)
		}()
	}
	wg.Wait()
	return nil
}

func (e *Explainer) explainJob(ctx context.Context, job *report.Job, rep *report.Report) *report.Explanation {
	x := &report.Explanation{Model: e.cfg.Model, Language: e.cfg.Lang}
	system, user, err := e.Prompt(job, rep)
	if err != nil {
		x.Missing = redact.String(fmt.Sprintf("the prompt could not be rendered: %v", err))
		return x
	}
	key := cacheKey(e.endpoint, e.cfg.Model, system, user)
	if c, ok := e.cache.get(key); ok {
		return c
	}
	if e.cfg.APIKey == "" && e.endpoint == DefaultBaseURL {
		x.Missing = "no API key for " + DefaultBaseURL + ": set --llm-api-key, TRAINDOC_LLM_API_KEY or OPENAI_API_KEY, or point --llm-base-url at a local server"
		return x
	}
	text, err := e.client.complete(ctx, system, user)
	if err != nil {
		x.Missing = err.Error()
		return x
	}
	a, err := parseAnswer(text)
	if err != nil {
		x.Missing = fmt.Sprintf("the model's answer could not be read: %v", err)
		return x
	}
	x.Healthy, x.Error, x.Analysis, x.Solution = a.Healthy, a.Error, a.Analysis, a.Solution
	// A failed cache write costs only a repeated request next time.
	_ = e.cache.put(key, x)
	return x
}
