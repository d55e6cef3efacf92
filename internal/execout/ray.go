package execout

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/traindoc/traindoc/engine/evidence"
)

var (
	// " 0.0/8.0 GPU" and " 8.0/8.0 GPU (8.0 used of 8.0 reserved in placement groups)"
	rayUsage = regexp.MustCompile(`^\s*([\d.]+)/([\d.]+)\s+(GPU|CPU)\b`)
	// " 3 gpu-group" (Ray ≥ 2.x: count and node type) or " 1 node_3f2a…"
	rayNodeCount = regexp.MustCompile(`^\s*(\d+)\s+\S`)
	// " gpu-group, 2 launching"
	rayLaunching = regexp.MustCompile(`(\d+)\s+launching`)
)

// ParseRayStatus parses `ray status`: nodes by section (Active and Idle,
// or Healthy in Ray 1.x, count as active; Pending as pending), resource
// usage and pending demands.
func ParseRayStatus(r io.Reader) (*evidence.RayStatus, error) {
	ls, err := lines(r)
	if err != nil {
		return nil, err
	}
	out := &evidence.RayStatus{}
	section := ""
	recognised := false
	for _, l := range ls {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "---") || strings.HasPrefix(t, "==="):
			recognised = recognised || strings.Contains(t, "Autoscaler status")
			continue
		case !strings.HasPrefix(l, " ") && strings.HasSuffix(t, ":"):
			section = strings.TrimSuffix(strings.TrimPrefix(t, "Total "), ":")
			continue
		case t == "Node status" || t == "Resources":
			recognised = true
			continue
		}
		if strings.HasPrefix(t, "(no ") {
			continue
		}
		switch section {
		case "Active", "Idle", "Healthy":
			recognised = true
			// "1 node_abc" names one node; "2 ray.worker.gpu" counts nodes
			// of a type. A count alone (a cut line) counts as such too.
			if m := rayNodeCount.FindStringSubmatch(l); m != nil && !namesNode(t) {
				out.ActiveNodes = addCount(out.ActiveNodes, count(m[1]))
			} else {
				out.ActiveNodes = addCount(out.ActiveNodes, 1)
			}
		case "Pending":
			recognised = true
			if m := rayLaunching.FindStringSubmatch(t); m != nil {
				out.PendingNodes = addCount(out.PendingNodes, count(m[1]))
			} else {
				out.PendingNodes = addCount(out.PendingNodes, 1)
			}
		case "Usage":
			if m := rayUsage.FindStringSubmatch(l); m != nil {
				recognised = true
				used, total := quantity(m[1]), quantity(m[2])
				if m[3] == "GPU" {
					out.GPUsUsed, out.GPUsTotal = used, total
				} else {
					out.CPUsUsed, out.CPUsTotal = used, total
				}
			}
		case "Demands":
			recognised = true
			out.Demands = append(out.Demands, t)
		}
	}
	if !recognised {
		return nil, fmt.Errorf("ray status: %w", errUnrecognised)
	}
	return out, nil
}

// ParseRayJobList parses `ray job list`. Ray prints a Python repr, either
// a list of JobDetails(...) (Ray ≥ 2.0) or a dict of id: JobInfo(...)
// (older), on one or many lines. An empty list is a valid, empty result.
func ParseRayJobList(r io.Reader) ([]evidence.RayJobInfo, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxExecFile))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	s := strings.ToValidUTF8(string(data), "\uFFFD")
	jobs := []evidence.RayJobInfo{}
	found := false
	for _, kind := range []string{"JobDetails(", "JobInfo("} {
		rest := s
		for {
			i := strings.Index(rest, kind)
			if i < 0 {
				break
			}
			found = true
			body, after := balanced(rest[i+len(kind)-1:])
			fields := reprFields(body)
			job := evidence.RayJobInfo{
				ID:         cmp.Or(pyString(fields["submission_id"]), pyString(fields["job_id"])),
				Status:     enumValue(fields["status"]),
				Entrypoint: fields["entrypoint"],
				Message:    fields["message"],
			}
			if job.ID == "" && kind == "JobInfo(" {
				job.ID = dictKeyBefore(rest[:i])
			}
			jobs = append(jobs, job)
			rest = after
		}
		if found {
			break
		}
	}
	if !found {
		t := strings.TrimSpace(s)
		if strings.HasSuffix(t, "[]") || strings.HasSuffix(t, "{}") {
			return jobs, nil
		}
		return nil, fmt.Errorf("ray job list: %w", errUnrecognised)
	}
	return jobs, nil
}

// balanced returns the text inside the parenthesis s starts with, and the
// text after its closing one, skipping quoted strings.
func balanced(s string) (body, after string) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				return s[1:i], s[i+1:]
			}
		}
	}
	return s[1:], ""
}

// reprFields reads the top-level key=value pairs of a Python repr body.
// String values are unquoted; others are kept as written.
func reprFields(body string) map[string]string {
	out := map[string]string{}
	i := 0
	for i < len(body) {
		for i < len(body) && (body[i] == ' ' || body[i] == ',' || body[i] == '\n') {
			i++
		}
		eq := strings.IndexByte(body[i:], '=')
		if eq < 0 {
			break
		}
		key := strings.TrimSpace(body[i : i+eq])
		i += eq + 1
		val, n := reprValue(body[i:])
		out[key] = val
		i += n
	}
	return out
}

// reprValue reads one value and returns it with the bytes consumed.
func reprValue(s string) (string, int) {
	if s == "" {
		return "", 0
	}
	if c := s[0]; c == '\'' || c == '"' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					switch s[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[i])
					}
				}
			case c:
				return b.String(), i + 1
			default:
				b.WriteByte(s[i])
			}
		}
		return b.String(), len(s)
	}
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
		case c == ')' || c == ']' || c == '}' || c == '>':
			depth--
		case c == ',' && depth == 0:
			return strings.TrimSpace(s[:i]), i
		}
	}
	return strings.TrimSpace(s), len(s)
}

// enumValue turns "<JobStatus.RUNNING: 'RUNNING'>" into RUNNING.
func enumValue(s string) string {
	if strings.HasPrefix(s, "<") {
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.Trim(s, " <>'\"")
	}
	return pyString(s)
}

// pyString is a repr field's value with Python's None read as unset.
func pyString(s string) string {
	if s == "None" {
		return ""
	}
	return s
}

// dictKeyBefore finds the "'key': " that precedes a JobInfo( in a dict.
func dictKeyBefore(s string) string {
	s = strings.TrimRight(s, " \n")
	s = strings.TrimSuffix(s, ":")
	s = strings.TrimRight(s, " ")
	if len(s) == 0 {
		return ""
	}
	q := s[len(s)-1]
	if q != '\'' && q != '"' {
		return ""
	}
	j := strings.LastIndexByte(s[:len(s)-1], q)
	if j < 0 {
		return ""
	}
	return s[j+1 : len(s)-1]
}

// namesNode says whether a node-status line's second field is a node id.
func namesNode(t string) bool {
	f := strings.Fields(t)
	return len(f) > 1 && strings.HasPrefix(f[1], "node_")
}
