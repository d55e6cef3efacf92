package site

import (
	"embed"
	"html/template"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/policies"
	"github.com/traindoc/traindoc/render"
)

// RuleFiles are what a rule page shows beside the rule's METADATA: where
// its file lives, the lines its signatures must and must not match (the
// rule's lines.yaml), and its tests.
type RuleFiles struct {
	// Path is repo-relative for a built-in rule (policies/rules/...) and
	// relative to its --policies directory, prefixed with that
	// directory's name, for a user rule: never absolute.
	Path string
	// Rel is the file's path below its rules root (exec/cuda_oom/
	// cuda_oom.rego): where a copy goes in a --policies folder.
	Rel        string
	Lines      *RuleLines
	TestPath   string
	TestSource string
}

// RuleLines is a rule's lines.yaml.
type RuleLines struct {
	Match   []ExampleLine `yaml:"match"`
	NoMatch []ExampleLine `yaml:"nomatch"`
}

// ExampleLine is one real line with where it was seen.
type ExampleLine struct {
	Line    string `yaml:"line"`
	Source  string `yaml:"source"`
	Library string `yaml:"library"`
}

const builtinPrefix = "builtin:"

// LoadRuleFiles finds each rule's lines.yaml and test file beside it: in
// the embedded policies for built-in rules, on disk for user rules.
func LoadRuleFiles(rules []*policy.Rule, policyDirs []string) map[string]RuleFiles {
	out := map[string]RuleFiles{}
	for _, r := range rules {
		if r.File == "" {
			continue
		}
		var (
			fsys    fs.FS
			file    string
			display string
		)
		if rel, ok := strings.CutPrefix(r.File, builtinPrefix); ok {
			fsys, file, display = policies.FS, rel, "policies/"+rel
		} else {
			dir, rel := policyDirOf(r.File, policyDirs)
			if dir == "" {
				display = filepath.Base(r.File)
				fsys, file = os.DirFS(filepath.Dir(r.File)), filepath.Base(r.File)
			} else {
				display = render.DisplayPath(dir) + "/" + rel
				fsys, file = os.DirFS(dir), rel
			}
		}
		rf := RuleFiles{Path: display, Rel: strings.TrimPrefix(file, "rules/")}
		dir := path.Dir(file)
		if b, err := fs.ReadFile(fsys, path.Join(dir, "lines.yaml")); err == nil {
			var l RuleLines
			if yaml.Unmarshal(b, &l) == nil && (len(l.Match) > 0 || len(l.NoMatch) > 0) {
				rf.Lines = &l
			}
		}
		test := strings.TrimSuffix(file, ".rego") + "_test.rego"
		if b, err := fs.ReadFile(fsys, test); err == nil {
			rf.TestSource = string(b)
			rf.TestPath = path.Join(path.Dir(display), path.Base(test))
		}
		out[r.ID] = rf
	}
	return out
}

// policyDirOf finds the --policies directory a user rule's file came from
// and the file's path inside it (slash-separated).
func policyDirOf(file string, dirs []string) (dir, rel string) {
	for _, d := range dirs {
		prefix := filepath.Clean(d) + string(filepath.Separator)
		if r, ok := strings.CutPrefix(file, prefix); ok {
			return d, filepath.ToSlash(r)
		}
	}
	return "", ""
}

var testName = regexp.MustCompile(`(?m)^(test_[A-Za-z0-9_]+)`)

// testNames are the test rules of a _test.rego file, in order.
func testNames(src string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range testName.FindAllStringSubmatch(src, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// numberedLines is highlighted Rego split into lines, each its own
// element with its number, so that a reader can cite "line 31" and link to
// it. A span that crosses a line end (a raw string) is closed and
// reopened.
func numberedLines(src string) []template.HTML {
	h := string(highlightRego(strings.TrimRight(src, "\n")))
	var out []template.HTML
	var line strings.Builder
	open := ""
	for i := 0; i < len(h); i++ {
		switch {
		case strings.HasPrefix(h[i:], `<span class="`):
			end := strings.IndexByte(h[i:], '>')
			open = h[i : i+end+1]
			line.WriteString(open)
			i += end
		case strings.HasPrefix(h[i:], `</span>`):
			open = ""
			line.WriteString(`</span>`)
			i += len(`</span>`) - 1
		case h[i] == '\n':
			if open != "" {
				line.WriteString(`</span>`)
			}
			// Safe: pieces of highlightRego's escaped output.
			out = append(out, template.HTML(line.String()))
			line.Reset()
			line.WriteString(open)
		default:
			line.WriteByte(h[i])
		}
	}
	return append(out, template.HTML(line.String()))
}

//go:embed example
var exampleFS embed.FS

// exampleRule is the worked example of the rule catalogue: a user rule
// with its test and example lines, as files of a --policies directory.
type exampleFile struct {
	Path   string
	Source string
}

func exampleRule() []exampleFile {
	var out []exampleFile
	_ = fs.WalkDir(exampleFS, "example", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := exampleFS.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, exampleFile{Path: "my-rules/" + strings.TrimPrefix(p, "example/"), Source: string(b)})
		return nil
	})
	return out
}
