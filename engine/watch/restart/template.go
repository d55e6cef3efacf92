// Package restart starts failed training jobs again from their newest
// checkpoint: by recreating the job from its stored object with a resume
// argument or variable (Recreate), by running a command the user gives
// (Command), or, in replays and dry runs, by recording what would be done
// (Recorder).
//
// The resume argument, variable and command are text/template templates
// over TemplateData and nothing else. A template is split into words
// before it is executed, so each word stays one argument whatever a
// checkpoint path holds (spaces, quotes, "{{"): the path is data, never
// parsed again, never seen by a shell.
package restart

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"unicode"
)

// TemplateData are the fields a template may use.
type TemplateData struct {
	Kind, Namespace, Name string
	// Checkpoint is the newest complete checkpoint's path ("" when none
	// is known); Step its step.
	Checkpoint string
	Step       int64
	// Attempt is this restart's number, from 1.
	Attempt int
}

// Words is a template split into words, each a template of its own.
type Words struct {
	src   string
	words []*template.Template
}

// ParseWords splits src into words the way a shell would (blanks separate
// words; single quotes keep everything; double quotes keep blanks and
// allow \" and \\; a backslash outside quotes escapes the next character),
// except that nothing inside {{ }} splits a word, and parses each word as
// a template. It checks every field the templates use.
func ParseWords(src string) (*Words, error) {
	parts, err := splitWords(src)
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", src, err)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("template %q: empty", src)
	}
	w := &Words{src: src}
	for i, p := range parts {
		t, err := template.New(fmt.Sprintf("word%d", i)).Option("missingkey=error").Parse(p)
		if err != nil {
			return nil, fmt.Errorf("template %q: %w", src, err)
		}
		w.words = append(w.words, t)
	}
	if _, err := w.Render(sample); err != nil {
		return nil, err
	}
	return w, nil
}

// parseWord parses src as one word, blanks and quotes included.
func parseWord(src string) (*Words, error) {
	t, err := template.New("word").Option("missingkey=error").Parse(src)
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", src, err)
	}
	w := &Words{src: src, words: []*template.Template{t}}
	if _, err := w.Render(sample); err != nil {
		return nil, err
	}
	return w, nil
}

// sample checks the fields a template uses when it is parsed, not when a
// restart is due.
var sample = TemplateData{Kind: "PyTorchJob", Namespace: "ns", Name: "job", Checkpoint: "/ckpt/step_1", Step: 1, Attempt: 1}

// String returns the template as given.
func (w *Words) String() string { return w.src }

// Render executes every word; each result is exactly one word.
func (w *Words) Render(d TemplateData) ([]string, error) {
	out := make([]string, 0, len(w.words))
	for _, t := range w.words {
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return nil, fmt.Errorf("template %q: %w", w.src, err)
		}
		out = append(out, b.String())
	}
	return out, nil
}

func splitWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
	)
	flush := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '{' && i+1 < len(rs) && rs[i+1] == '{':
			end := strings.Index(string(rs[i:]), "}}")
			if end < 0 {
				return nil, errors.New("unterminated {{")
			}
			action := []rune(string(rs[i:])[:end+2])
			cur.WriteString(string(action))
			i += len(action) - 1
			in = true
		case unicode.IsSpace(r):
			flush()
		case r == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i, in = j, true
		case r == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && (rs[j+1] == '"' || rs[j+1] == '\\') {
					j++
				}
				if rs[j] == '{' && j+1 < len(rs) && rs[j+1] == '{' {
					end := strings.Index(string(rs[j:]), "}}")
					if end < 0 {
						return nil, errors.New("unterminated {{")
					}
					j += len([]rune(string(rs[j:])[:end+2])) - 1
				}
			}
			if j == len(rs) {
				return nil, errors.New("unterminated double quote")
			}
			cur.WriteString(unescapeDouble(string(rs[i+1 : j])))
			i, in = j, true
		case r == '\\':
			if i+1 == len(rs) {
				return nil, errors.New("trailing backslash")
			}
			cur.WriteRune(rs[i+1])
			i, in = i+1, true
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	return words, nil
}

func unescapeDouble(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s)
}

// shellQuote quotes a word for a POSIX shell (for a RayJob entrypoint or a
// `bash -c` script, which a shell parses).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
