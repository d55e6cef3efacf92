package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/traindoc/traindoc/engine/explain"
	"github.com/traindoc/traindoc/engine/report"
)

// Environment variables read when the matching flag is not given.
const (
	envLLMBaseURL = "TRAINDOC_LLM_BASE_URL"
	envLLMModel   = "TRAINDOC_LLM_MODEL"
	envLLMAPIKey  = "TRAINDOC_LLM_API_KEY"
	envOpenAIKey  = "OPENAI_API_KEY"
)

// llmFlags configure the optional LLM explanation step.
type llmFlags struct {
	enabled     bool
	baseURL     string
	model       string
	apiKey      string
	timeout     time.Duration
	retries     int
	concurrency int
	cache       string
	prompts     string
	// fs is the command's flag set; apply reads --snapshot from it so that
	// the snapshots' prompts/ folders override the built-in templates.
	fs *pflag.FlagSet
}

// bindLLMFlags adds the --llm flags to fs.
func bindLLMFlags(fs *pflag.FlagSet) *llmFlags {
	f := &llmFlags{fs: fs}
	fs.BoolVar(&f.enabled, "llm", false, "explain each unhealthy job with an OpenAI-compatible LLM (OpenAI, Azure OpenAI, vLLM, Ollama, LocalAI)")
	fs.StringVar(&f.baseURL, "llm-base-url", "", "LLM API base URL, e.g. http://localhost:11434/v1 (env "+envLLMBaseURL+"; default "+explain.DefaultBaseURL+")")
	fs.StringVar(&f.model, "llm-model", "", "model, or deployment on Azure (env "+envLLMModel+"; default "+explain.DefaultModel+")")
	fs.StringVar(&f.apiKey, "llm-api-key", "", "API key (env "+envLLMAPIKey+", then "+envOpenAIKey+"); prefer the environment, flags are visible to other users")
	fs.DurationVar(&f.timeout, "llm-timeout", explain.DefaultTimeout, "timeout of each LLM request")
	fs.IntVar(&f.retries, "llm-retries", explain.DefaultMaxRetries, "retries after HTTP 429, 5xx or a dropped connection, with backoff")
	fs.IntVar(&f.concurrency, "llm-concurrency", explain.DefaultConcurrency, "LLM requests in flight at most")
	fs.StringVar(&f.cache, "llm-cache", "", `directory of cached explanations (default <user cache dir>/traindoc/llm; "off" disables)`)
	bindPromptsFlag(fs, &f.prompts)
	return f
}

// bindPromptsFlag adds --prompts, shared with the prompt command.
func bindPromptsFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "prompts", "", "directory of prompt templates <kind>.tmpl or <kind>.<lang>.tmpl overriding the built-in ones and the snapshot's prompts/")
}

// snapshotDirs are the --snapshot values of the same command, if any.
func snapshotDirs(fs *pflag.FlagSet) []string {
	if fs == nil || fs.Lookup("snapshot") == nil {
		return nil
	}
	if dirs, err := fs.GetStringArray("snapshot"); err == nil {
		return dirs
	}
	if dirs, err := fs.GetStringSlice("snapshot"); err == nil {
		return dirs
	}
	if dir, err := fs.GetString("snapshot"); err == nil && dir != "" {
		return []string{dir}
	}
	return nil
}

// config resolves flags, then environment, then defaults.
func (f *llmFlags) config(lang string) explain.Config {
	pick := func(flag string, envs ...string) string {
		if flag != "" {
			return flag
		}
		for _, e := range envs {
			if v := strings.TrimSpace(os.Getenv(e)); v != "" {
				return v
			}
		}
		return ""
	}
	cfg := explain.Config{
		BaseURL:      pick(f.baseURL, envLLMBaseURL),
		Model:        pick(f.model, envLLMModel),
		APIKey:       pick(f.apiKey, envLLMAPIKey, envOpenAIKey),
		Timeout:      f.timeout,
		MaxRetries:   f.retries,
		Concurrency:  f.concurrency,
		PromptsDir:   f.prompts,
		SnapshotDirs: snapshotDirs(f.fs),
		Lang:         lang,
	}
	// In explain.Config zero means "default"; on the command line 0 means
	// no retries.
	if f.retries == 0 {
		cfg.MaxRetries = -1
	}
	switch f.cache {
	case "":
		cfg.CacheDir = explain.DefaultCacheDir()
	case "off", "none":
	default:
		cfg.CacheDir = f.cache
	}
	return cfg
}

// apply adds the LLM explanation to rep's unhealthy jobs when --llm is set.
// Only configuration errors (an invalid template or base URL) are returned;
// a failed explanation is a note in the report and a line on stderr, and
// the exit code stays what the findings make it.
func (f *llmFlags) apply(ctx context.Context, rep *report.Report, lang string, errOut io.Writer) error {
	if f == nil || !f.enabled {
		return nil
	}
	e, err := explain.New(f.config(lang))
	if err != nil {
		return usageError(err)
	}
	if err := e.Explain(ctx, rep); err != nil {
		return err
	}
	for _, j := range rep.Jobs {
		if x := j.Explanation; x != nil && x.Missing != "" {
			fmt.Fprintf(errOut, "traindoc: no LLM explanation for %s %s: %s\n", j.Kind, j.Key(), x.Missing)
		}
	}
	return nil
}

// llmFlagsOf reads back the flags bindLLMFlags added to fs, so a command's
// RunE can reach them without keeping the bound struct in a variable.
func llmFlagsOf(fs *pflag.FlagSet) *llmFlags {
	f := &llmFlags{fs: fs}
	if fs.Lookup("llm") == nil {
		return f
	}
	f.enabled, _ = fs.GetBool("llm")
	f.baseURL, _ = fs.GetString("llm-base-url")
	f.model, _ = fs.GetString("llm-model")
	f.apiKey, _ = fs.GetString("llm-api-key")
	f.timeout, _ = fs.GetDuration("llm-timeout")
	f.retries, _ = fs.GetInt("llm-retries")
	f.concurrency, _ = fs.GetInt("llm-concurrency")
	f.cache, _ = fs.GetString("llm-cache")
	f.prompts, _ = fs.GetString("prompts")
	return f
}
