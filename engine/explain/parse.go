package explain

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/redact"
)

// answer is the model's explanation in the Healthy/Error/Analysis/Solution
// format.
type answer struct {
	Healthy  string
	Error    string
	Analysis string
	Solution []string
}

var errUnparsable = errors.New("the answer was neither the requested JSON nor Healthy/Error/Analysis/Solution sections")

// parseAnswer reads the JSON object the system prompt asks for and, when
// the model (or a custom template) produced prose instead, the four headed
// sections in English or Chinese. Every field is redacted: the model never
// saw the secrets, but it may have been fed an override template that did.
func parseAnswer(text string) (answer, error) {
	a, ok := parseJSONAnswer(text)
	if !ok {
		a, ok = parseSections(text)
	}
	if !ok {
		return answer{}, errUnparsable
	}
	a.Healthy = normHealthy(a.Healthy)
	a.Error = redact.String(oneLine(a.Error))
	a.Analysis = redact.String(strings.TrimSpace(a.Analysis))
	steps := a.Solution[:0]
	for _, s := range a.Solution {
		if s = redact.String(strings.TrimSpace(s)); s != "" {
			steps = append(steps, s)
		}
	}
	a.Solution = steps
	return a, nil
}

// fieldAliases maps the names a model may use to the four fields.
var fieldAliases = map[string]string{
	"healthy": "healthy", "health": "healthy", "is_healthy": "healthy", "ishealthy": "healthy", "健康": "healthy",
	"error": "error", "cause": "error", "root_cause": "error", "错误": "error",
	"analysis": "analysis", "分析": "analysis",
	"solution": "solution", "solutions": "solution", "steps": "solution", "plan": "solution", "解决方案": "solution",
}

func parseJSONAnswer(text string) (answer, bool) {
	s := strings.TrimSpace(text)
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start < 0 || end <= start {
		return answer{}, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s[start:end+1]), &m); err != nil {
		return answer{}, false
	}
	var a answer
	set := map[string]bool{}
	for _, k := range answerKeys(m) {
		field := fieldAliases[normKey(k)]
		if set[field] {
			continue
		}
		set[field] = true
		v := m[k]
		switch field {
		case "healthy":
			a.Healthy = scalar(v)
		case "error":
			a.Error = scalar(v)
		case "analysis":
			a.Analysis = scalar(v)
		case "solution":
			a.Solution = steps(v)
		}
	}
	found := 0
	for _, f := range []string{"error", "analysis", "solution"} {
		if set[f] {
			found++
		}
	}
	return a, found >= 2
}

func normKey(k string) string { return strings.ToLower(strings.TrimSpace(k)) }

// answerKeys returns the keys of m that name a field, in the order they
// are used: when a model gives a field twice ("error" and "cause"), the
// field's own name wins, then the alphabetically first alias, so the
// answer does not depend on map order.
func answerKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		if fieldAliases[normKey(k)] != "" {
			keys = append(keys, k)
		}
	}
	rank := func(k string) int {
		if n := normKey(k); fieldAliases[n] == n {
			return 0
		}
		return 1
	}
	sort.Slice(keys, func(i, j int) bool {
		if ri, rj := rank(keys[i]), rank(keys[j]); ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

func scalar(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		if v {
			return "Yes"
		}
		return "No"
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			parts = append(parts, scalar(x))
		}
		return strings.Join(parts, "\n")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func steps(v any) []string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				// {"step": 1, "action": "..."} and similar: keep the text.
				var parts []string
				for _, k := range []string{"title", "step", "action", "description", "detail", "command"} {
					if s, ok := m[k].(string); ok && s != "" {
						parts = append(parts, s)
					}
				}
				if len(parts) > 0 {
					out = append(out, stripMarker(strings.Join(parts, ": ")))
					continue
				}
			}
			out = append(out, stripMarker(scalar(x)))
		}
		return out
	case string:
		return splitSteps(v)
	}
	return splitSteps(scalar(v))
}

// heading matches a section heading line: "Healthy: No", "**Error:** x",
// "## Analysis", "解决方案：". The word must be followed by a colon or be
// a Markdown heading; otherwise "Error handling is..." would start a
// section.
var heading = regexp.MustCompile(`(?i)^\s*(#{1,6}\s*)?(?:\*\*|__)?\s*(healthy|health|error|root cause|analysis|solutions?|健康|错误|分析|解决方案)\s*(?:\*\*|__)?\s*([:：])?\s*(?:\*\*|__)?\s*(.*)$`)

func parseSections(text string) (answer, bool) {
	sections := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil && (m[1] != "" || m[3] != "" || boldOnly(line)) {
			cur = fieldAliases[strings.ReplaceAll(strings.ToLower(m[2]), " ", "_")]
			if cur == "" {
				cur = "solution"
			}
			if _, dup := sections[cur]; dup {
				// A repeated heading (the model quoting the format) starts over.
				sections[cur] = nil
			}
			sections[cur] = append(sections[cur], m[4])
			continue
		}
		if cur != "" {
			sections[cur] = append(sections[cur], line)
		}
	}
	found := 0
	for _, k := range []string{"error", "analysis", "solution"} {
		if strings.TrimSpace(strings.Join(sections[k], "\n")) != "" {
			found++
		}
	}
	if found < 2 {
		return answer{}, false
	}
	return answer{
		Healthy:  strings.TrimSpace(strings.Join(sections["healthy"], " ")),
		Error:    strings.Join(sections["error"], " "),
		Analysis: strings.Join(sections["analysis"], "\n"),
		Solution: splitSteps(strings.Join(sections["solution"], "\n")),
	}, true
}

// boldOnly reports whether line is just a bold word, "**Analysis**".
func boldOnly(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) > 4 && strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**") && !strings.Contains(t[2:len(t)-2], "*")
}

var stepMarker = regexp.MustCompile(`^\s*(?:(?:\d+|[一二三四五六七八九十]+)\s*[.)、:：]|[-*•·]|步骤\s*\d+\s*[:：.]|step\s*\d+\s*[:：.])\s*`)

// splitSteps splits a list into steps: a numbered or bulleted line starts a
// step and following unmarked lines continue it. Text without markers is
// one step per non-empty line.
func splitSteps(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	marked := false
	for _, l := range lines {
		if stepMarker.MatchString(l) {
			marked = true
			break
		}
	}
	// Each step is collected as its lines and joined once: appending to
	// a growing string would copy it for every continuation line, which
	// is quadratic in a long answer.
	var parts [][]string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || t == "```" {
			continue
		}
		if !marked || stepMarker.MatchString(l) || len(parts) == 0 {
			parts = append(parts, []string{stripMarker(t)})
			continue
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], t)
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = strings.Join(p, " ")
	}
	return out
}

func stripMarker(s string) string {
	s = strings.TrimSpace(s)
	loc := stepMarker.FindStringIndex(s)
	if loc != nil && loc[0] == 0 {
		s = s[loc[1]:]
	}
	return strings.TrimSpace(s)
}

// normHealthy maps the model's verdict to "Yes" or "No"; anything else is
// kept (shortened) so the reader still sees it.
func normHealthy(s string) string {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(s), "*_.。!！ "))
	switch {
	case t == "":
		return ""
	case strings.HasPrefix(t, "no"), strings.HasPrefix(t, "not"), strings.HasPrefix(t, "unhealthy"),
		strings.HasPrefix(t, "false"), strings.HasPrefix(t, "否"), strings.HasPrefix(t, "不"):
		return "No"
	case strings.HasPrefix(t, "yes"), strings.HasPrefix(t, "healthy"), strings.HasPrefix(t, "true"),
		strings.HasPrefix(t, "是"), strings.HasPrefix(t, "健康"):
		return "Yes"
	}
	return truncate(oneLine(fmt.Sprint(s)), 40)
}
