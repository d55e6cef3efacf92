package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/traindoc/traindoc/engine/redact"
)

// Backoff bounds. A Retry-After header from the server wins over the
// computed delay, up to maxRetryAfter.
const (
	defaultMinBackoff = 500 * time.Millisecond
	defaultMaxBackoff = 8 * time.Second
	maxRetryAfter     = 30 * time.Second
	azureAPIVersion   = "2024-06-01"
)

// chatClient sends one chat completion per job with bounded retries and a
// cap on requests in flight.
type chatClient struct {
	api        *openai.Client
	model      string
	timeout    time.Duration
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	// sem bounds concurrent HTTP requests across all jobs.
	sem chan struct{}
	// noJSONMode is set once the server rejects response_format; later
	// requests go without it instead of failing the same way again.
	noJSONMode atomic.Bool
	// wait sleeps between attempts; tests replace it so that they never
	// sleep and can see the delays.
	wait func(ctx context.Context, d time.Duration) error
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func newChatClient(cfg Config) *chatClient {
	var cc openai.ClientConfig
	if isAzure(cfg.BaseURL) {
		cc = openai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		cc.APIVersion = azureAPIVersion
	} else {
		cc = openai.DefaultConfig(cfg.APIKey)
		cc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	cc.HTTPClient = hintDoer{hc}
	return &chatClient{
		api:        openai.NewClientWithConfig(cc),
		model:      cfg.Model,
		timeout:    cfg.Timeout,
		maxRetries: cfg.MaxRetries,
		minBackoff: defaultMinBackoff,
		maxBackoff: defaultMaxBackoff,
		sem:        make(chan struct{}, cfg.Concurrency),
		wait:       sleep,
	}
}

// isAzure tells Azure OpenAI endpoints, which route by deployment and
// authenticate with an api-key header, from the OpenAI-style ones.
func isAzure(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com")
}

// failure is why a completion did not produce an answer; its message goes
// into Explanation.Missing.
type failure struct {
	msg string
}

func (f *failure) Error() string { return f.msg }

func failf(format string, args ...any) error {
	return &failure{msg: redact.String(fmt.Sprintf(format, args...))}
}

// complete returns the model's answer text. Errors are *failure values with
// a message fit for the report.
func (c *chatClient) complete(ctx context.Context, system, user string) (string, error) {
	attempts := 0
	for {
		jsonMode := !c.noJSONMode.Load()
		attempts++
		text, hint, err := c.once(ctx, system, user, jsonMode)
		if err == nil {
			return text, nil
		}
		status := httpStatus(err)
		// Servers that do not know response_format answer 400; ask again
		// without it, once, and without spending a retry.
		if jsonMode && status == http.StatusBadRequest {
			c.noJSONMode.Store(true)
			attempts--
			continue
		}
		if !retryable(ctx, err, status) || attempts > c.maxRetries {
			return "", describe(ctx, err, status, attempts, c.timeout)
		}
		if err := c.wait(ctx, c.backoff(attempts, hint)); err != nil {
			return "", describe(ctx, err, 0, attempts, c.timeout)
		}
	}
}

// once sends one request, holding a concurrency slot only while it is in
// flight (not while backing off).
func (c *chatClient) once(ctx context.Context, system, user string, jsonMode bool) (string, time.Duration, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return "", 0, ctx.Err()
	}
	defer func() { <-c.sem }()

	hint := &retryHint{}
	actx := context.WithValue(ctx, hintKey{}, hint)
	if c.timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(actx, c.timeout)
		defer cancel()
	}
	req := openai.ChatCompletionRequest{
		Model: c.model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	}
	if jsonMode {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	resp, err := c.api.CreateChatCompletion(actx, req)
	if err != nil {
		return "", hint.after, err
	}
	if len(resp.Choices) == 0 {
		return "", 0, failf("the model returned no answer")
	}
	ch := resp.Choices[0]
	if ch.Message.Refusal != "" {
		return "", 0, failf("the model refused: %s", oneLine(ch.Message.Refusal))
	}
	if ch.FinishReason == openai.FinishReasonContentFilter {
		return "", 0, failf("the answer was withheld by the endpoint's content filter")
	}
	if strings.TrimSpace(ch.Message.Content) == "" {
		return "", 0, failf("the model returned an empty answer (finish reason %q)", ch.FinishReason)
	}
	return ch.Message.Content, 0, nil
}

// backoff is exponential with full jitter, or the server's Retry-After.
func (c *chatClient) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, maxRetryAfter)
	}
	d := c.minBackoff << (attempt - 1)
	if d <= 0 || d > c.maxBackoff {
		d = c.maxBackoff
	}
	// Half fixed, half random, so concurrent jobs that hit the same 429
	// do not come back in lockstep.
	return d/2 + rand.N(d/2+1)
}

func httpStatus(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// retryable: rate limits, server errors and dropped connections. Timeouts
// are not retried: a server too slow once will be slow again, and the user
// set the timeout to bound the wait.
func retryable(ctx context.Context, err error, status int) bool {
	if ctx.Err() != nil {
		return false
	}
	switch {
	case status == http.StatusTooManyRequests, status >= 500:
		return true
	case status != 0:
		return false
	}
	// A connection dropped mid-request is worth another try; a refused
	// dial, a timeout or an unreadable body is not.
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	return false
}

// describe turns an error into the Missing note.
func describe(ctx context.Context, err error, status, attempts int, timeout time.Duration) error {
	var f *failure
	if errors.As(err, &f) {
		return f
	}
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	switch {
	case ctx.Err() != nil:
		return failf("the explanation was canceled: %v", ctx.Err())
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return failf("the LLM request timed out after %s", timeout)
	case status == http.StatusTooManyRequests:
		return failf("the LLM endpoint is rate limiting (HTTP 429)%s: %s", tries, apiMessage(err))
	case status >= 500:
		return failf("the LLM endpoint failed (HTTP %d)%s: %s", status, tries, apiMessage(err))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return failf("the LLM endpoint refused the credentials (HTTP %d): %s", status, apiMessage(err))
	case status != 0:
		return failf("the LLM endpoint rejected the request (HTTP %d): %s", status, apiMessage(err))
	case notCompletion(err):
		return failf("the LLM endpoint's response is not a chat completion: %v", err)
	}
	return failf("the LLM endpoint could not be reached%s: %v", tries, err)
}

// notCompletion reports a response body that is not the expected JSON.
func notCompletion(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syn) || errors.As(err, &typ)
}

func isTimeout(err error) bool {
	var nerr net.Error
	return errors.As(err, &nerr) && nerr.Timeout()
}

// apiMessage is the server's own message, short.
func apiMessage(err error) string {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		return truncate(oneLine(apiErr.Message), 200)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		if len(reqErr.Body) > 0 {
			return truncate(oneLine(string(reqErr.Body)), 200)
		}
		return reqErr.HTTPStatus
	}
	return truncate(oneLine(err.Error()), 200)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// hintDoer records the Retry-After header of 429 and 5xx responses in the
// request's context, where complete reads it; go-openai's errors do not
// carry response headers.
type hintDoer struct{ c *http.Client }

type hintKey struct{}

type retryHint struct{ after time.Duration }

func (d hintDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err != nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500) {
		return resp, err
	}
	if h, ok := req.Context().Value(hintKey{}).(*retryHint); ok {
		h.after = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp, err
}

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		// Converting a float beyond the range of a Duration gives an
		// arbitrary (negative, on amd64) value, so saturate first.
		d := s * float64(time.Second)
		if d >= math.MaxInt64 {
			return math.MaxInt64
		}
		return time.Duration(d)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
