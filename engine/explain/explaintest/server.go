// Package explaintest is a fake OpenAI-compatible chat completion server
// for tests: it listens on loopback only, records every request and answers
// in one of several ways (JSON, prose, slowly, rate limited, failing,
// garbage), so that the explanation step can be tested over real HTTP.
package explaintest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Mode is how the server answers.
type Mode int

const (
	// JSON answers with the explanation as a JSON object.
	JSON Mode = iota
	// Text answers with Healthy/Error/Analysis/Solution sections in prose
	// (Chinese headings when the system prompt asks for Chinese).
	Text
	// Slow waits Delay before answering as JSON.
	Slow
	// RateLimitOnce answers 429 with Retry-After: 0 to the first request,
	// then JSON.
	RateLimitOnce
	// ServerError answers 500 to everything.
	ServerError
	// Garbage answers 200 with a body that is not a chat completion.
	Garbage
	// GarbageAnswer answers a well-formed completion whose content is
	// neither JSON nor the four sections.
	GarbageAnswer
	// NoJSONMode rejects response_format with 400, like some older
	// servers, and answers prose otherwise.
	NoJSONMode
	// Refuse answers with a refusal.
	Refuse
)

// Request is one recorded request.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
	Chat   ChatRequest
}

// ChatRequest is the part of a chat completion request the tests look at.
type ChatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// System is the system message, User the user message.
func (c ChatRequest) System() string { return c.message("system") }

// User is the user message.
func (c ChatRequest) User() string { return c.message("user") }

func (c ChatRequest) message(role string) string {
	for _, m := range c.Messages {
		if m.Role == role {
			return m.Content
		}
	}
	return ""
}

// Server is the fake endpoint.
type Server struct {
	srv *httptest.Server
	// Mode is read on every request, so tests may change it between runs.
	mode  Mode
	Delay time.Duration
	// Answer, when set, replaces the content of successful answers.
	Answer func(req ChatRequest) string

	mu       sync.Mutex
	requests []Request
}

// New starts a server on 127.0.0.1 and stops it when the test ends.
func New(t testing.TB, mode Mode) *Server {
	t.Helper()
	s := &Server{mode: mode, Delay: 2 * time.Second}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the API base URL to configure, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// SetMode changes how later requests are answered.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var chat ChatRequest
	_ = json.Unmarshal(body, &chat)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Chat: chat})
	mode := s.mode
	s.mu.Unlock()

	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		apiError(w, http.StatusNotFound, "no such endpoint "+r.URL.Path)
		return
	}
	switch mode {
	case Slow:
		select {
		case <-time.After(s.Delay):
		case <-r.Context().Done():
			return
		}
	case RateLimitOnce:
		if n == 0 {
			w.Header().Set("Retry-After", "0")
			apiError(w, http.StatusTooManyRequests, "Rate limit reached for requests")
			return
		}
	case ServerError:
		apiError(w, http.StatusInternalServerError, "The server had an error while processing your request")
		return
	case Garbage:
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>502 Bad Gateway</body></html>")
		return
	case NoJSONMode:
		if chat.ResponseFormat != nil {
			apiError(w, http.StatusBadRequest, "response_format is not supported by this model")
			return
		}
	}

	msg := map[string]any{"role": "assistant"}
	finish := "stop"
	switch {
	case mode == Refuse:
		msg["content"] = ""
		msg["refusal"] = "I can't help with that."
	case mode == GarbageAnswer:
		msg["content"] = "lorem ipsum dolor sit amet"
	case s.Answer != nil:
		msg["content"] = s.Answer(chat)
	case mode == Text || mode == NoJSONMode:
		msg["content"] = TextAnswer(chat)
	default:
		msg["content"] = JSONAnswer(chat)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":      fmt.Sprintf("chatcmpl-test-%d", n),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   chat.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
	})
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": "test_error", "code": status},
	})
}

var jobName = regexp.MustCompile(`(?:Job Name:|作业名称：)\s*(\S+)`)

// Chinese reports whether the system prompt asks for a Chinese answer.
func Chinese(req ChatRequest) bool { return strings.Contains(req.System(), "中文") }

func name(req ChatRequest) string {
	if m := jobName.FindStringSubmatch(req.User()); m != nil {
		return m[1]
	}
	return "the job"
}

// JSONAnswer is the canned JSON answer for req.
func JSONAnswer(req ChatRequest) string {
	a := map[string]any{
		"healthy":  "No",
		"error":    "Replica of " + name(req) + " ran out of memory.",
		"analysis": "The primary finding shows the container of " + name(req) + " exceeded its memory; the other failures follow from it.",
		"solution": []string{"Lower the per-device batch size.", "Raise the memory limit of the replica.", "Resubmit the job."},
	}
	if Chinese(req) {
		a = map[string]any{
			"healthy":  "No",
			"error":    name(req) + " 的副本内存不足。",
			"analysis": "主要发现表明 " + name(req) + " 的容器超出了内存；其余失败都是它的后果。",
			"solution": []string{"减小每个设备的 batch size。", "提高副本的内存上限。", "重新提交作业。"},
		}
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// TextAnswer is the canned prose answer for req.
func TextAnswer(req ChatRequest) string {
	if Chinese(req) {
		return "健康：否\n错误：" + name(req) + " 的副本内存不足。\n分析：主要发现表明容器超出了内存。\n其余失败都是它的后果。\n解决方案：\n1. 减小 batch size。\n2. 提高内存上限。\n"
	}
	return "Healthy: No\nError: Replica of " + name(req) + " ran out of memory.\nAnalysis: The container exceeded its memory.\nThe other failures follow from it.\nSolution:\n1. Lower the batch size.\n2. Raise the memory limit\n   of the replica.\n"
}
