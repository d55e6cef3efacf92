package explain

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
	"github.com/traindoc/traindoc/internal/regfile"
)

//go:embed templates
var builtinFS embed.FS

// Languages are the prompt languages: those of internal/i18n.
var Languages = i18n.Languages

// maxTemplate bounds an override template; the built-in ones are a few
// KiB.
const maxTemplate = 1 << 20

// defaultKind names the built-in (or override) template for kinds without
// their own.
const defaultKind = "default"

// templateFuncs are available to every prompt template.
var templateFuncs = template.FuncMap{
	// fence wraps untrusted text so it cannot escape into the prompt.
	"fence": Fence,
	"join":  func(list []string, sep string) string { return strings.Join(list, sep) },
	"indent": func(n int, s string) string {
		pad := strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
	},
	"oneline": oneLine,
}

// templates holds every prompt template, parsed and checked.
type templates struct {
	// system is the system prompt per language. It carries the answer
	// format and the rule that log text is data, so it is not overridable.
	system map[string]*template.Template
	// user is the user prompt per language and kind (lowercase).
	user map[string]map[string]*template.Template
	// source names where each user template came from, for messages.
	source map[string]map[string]string
}

// loadTemplates parses the built-in templates, then the overrides in dirs
// (highest priority first), and checks each one against a complete data
// value so that a typo fails now, with its file and line, rather than on
// the first unhealthy job. A dir that does not exist is skipped only when
// optional is true for it.
func loadTemplates(dirs []promptDir) (*templates, error) {
	ts := &templates{
		system: map[string]*template.Template{},
		user:   map[string]map[string]*template.Template{},
		source: map[string]map[string]string{},
	}
	commons := map[string]*template.Template{}
	for _, lang := range Languages {
		common, err := parseBuiltin(template.New("common").Funcs(templateFuncs), lang, "common.tmpl")
		if err != nil {
			return nil, err
		}
		commons[lang] = common
		sys, err := parseBuiltin(template.New("system").Funcs(templateFuncs), lang, "system.tmpl")
		if err != nil {
			return nil, err
		}
		if err := check(sys); err != nil {
			return nil, err
		}
		ts.system[lang] = sys
		ts.user[lang] = map[string]*template.Template{}
		ts.source[lang] = map[string]string{}
		entries, err := fs.ReadDir(builtinFS, "templates/"+lang)
		if err != nil {
			return nil, fmt.Errorf("built-in prompts: %w", err)
		}
		for _, e := range entries {
			kind := strings.TrimSuffix(e.Name(), ".tmpl")
			if kind == "common" || kind == "system" {
				continue
			}
			t, err := parseBuiltin(cloneOf(common), lang, e.Name())
			if err != nil {
				return nil, err
			}
			if err := check(t); err != nil {
				return nil, err
			}
			ts.user[lang][kind] = t
			ts.source[lang][kind] = "built-in " + lang + "/" + e.Name()
		}
	}

	// Overrides: apply the lowest priority first so higher ones replace
	// them. <kind>.<lang>.tmpl beats <kind>.tmpl within the same dir.
	for i := len(dirs) - 1; i >= 0; i-- {
		files, err := overrideFiles(dirs[i])
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			// A snapshot's prompts/ may hold anything: a named pipe
			// would block the read, a link to /dev/zero never end it.
			body, err := regfile.ReadFileFS(f.fsys, f.name, maxTemplate)
			if err != nil {
				return nil, fmt.Errorf("read prompt template %s: %w", f.path, err)
			}
			for _, lang := range Languages {
				if f.lang != "" && f.lang != lang {
					continue
				}
				// Parse into a copy of the built-in blocks so an override
				// can reuse {{template "facts" .}} and friends.
				t, err := cloneOf(commons[lang]).New(f.path).Parse(string(body))
				if err != nil {
					return nil, fmt.Errorf("invalid prompt template: %w", err)
				}
				if err := check(t); err != nil {
					return nil, err
				}
				ts.user[lang][f.kind] = t
				ts.source[lang][f.kind] = f.path
			}
		}
	}
	return ts, nil
}

// promptDir is a directory of override templates: dir in fsys, named
// label in messages.
type promptDir struct {
	fsys       fs.FS
	dir, label string
	// optional dirs (a snapshot's prompts/) may be absent.
	optional bool
}

// overrideFile is a template: name in fsys, path in messages.
type overrideFile struct {
	fsys                   fs.FS
	name, path, kind, lang string
}

// overrideFiles lists a dir's templates, files without a language first so
// that <kind>.<lang>.tmpl is applied after, and so beats, <kind>.tmpl.
func overrideFiles(d promptDir) ([]overrideFile, error) {
	entries, err := fs.ReadDir(d.fsys, d.dir)
	if err != nil {
		if d.optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("prompt templates %s: %w", d.label, err)
	}
	var out []overrideFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".tmpl") || strings.HasPrefix(name, ".") {
			continue
		}
		kind := strings.ToLower(strings.TrimSuffix(name, ".tmpl"))
		lang := ""
		if k, l, ok := strings.Cut(kind, "."); ok {
			kind, lang = k, l
			if !validLang(lang) {
				return nil, fmt.Errorf("prompt template %s: unknown language %q (want one of %s)",
					path.Join(d.label, name), lang, strings.Join(Languages, ", "))
			}
		}
		out = append(out, overrideFile{fsys: d.fsys, name: path.Join(d.dir, name), path: path.Join(d.label, name), kind: kind, lang: lang})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if (out[a].lang == "") != (out[b].lang == "") {
			return out[a].lang == ""
		}
		return out[a].path < out[b].path
	})
	return out, nil
}

func parseBuiltin(t *template.Template, lang, name string) (*template.Template, error) {
	b, err := builtinFS.ReadFile(path.Join("templates", lang, name))
	if err != nil {
		return nil, fmt.Errorf("built-in prompt %s/%s: %w", lang, name, err)
	}
	nt, err := t.New("builtin/" + lang + "/" + name).Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("invalid built-in prompt: %w", err)
	}
	return nt, nil
}

// cloneOf copies t with its associated templates. Clone only fails after
// t has been executed, which never happens to the shared common sets.
func cloneOf(t *template.Template) *template.Template {
	c, err := t.Clone()
	if err != nil {
		panic(fmt.Sprintf("clone prompt template: %v", err))
	}
	return c
}

// check executes t against a zero-but-complete Data (every pointer set,
// every list one element long, every Metadata key present) with
// missingkey=error, so an unknown field, a misspelt Metadata key or a bad
// function argument fails with the template's file and line. It also
// rejects {{ index .Metadata "X" }} with an unknown constant X, which index
// itself would silently render as empty.
func check(t *template.Template) error {
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		if err := checkMetadataKeys(tt, tt.Tree.Root); err != nil {
			return err
		}
	}
	c := cloneOf(t).Option("missingkey=error")
	if err := c.Execute(io.Discard, checkData()); err != nil {
		return fmt.Errorf("invalid prompt template: %w", err)
	}
	return nil
}

func checkMetadataKeys(t *template.Template, n parse.Node) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkMetadataKeys(t, c); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		return checkMetadataKeys(t, n.Pipe)
	case *parse.IfNode:
		return checkBranch(t, &n.BranchNode)
	case *parse.RangeNode:
		return checkBranch(t, &n.BranchNode)
	case *parse.WithNode:
		return checkBranch(t, &n.BranchNode)
	case *parse.TemplateNode:
		return checkMetadataKeys(t, n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Cmds {
			if err := checkMetadataKeys(t, c); err != nil {
				return err
			}
		}
	case *parse.CommandNode:
		if len(n.Args) >= 3 {
			id, isIdent := n.Args[0].(*parse.IdentifierNode)
			field, isField := n.Args[1].(*parse.FieldNode)
			key, isString := n.Args[2].(*parse.StringNode)
			if isIdent && id.Ident == "index" && isField && isString &&
				len(field.Ident) == 1 && field.Ident[0] == "Metadata" && !knownMetadataKey(key.Text) {
				loc, _ := t.ErrorContext(key)
				return fmt.Errorf("prompt template %s: unknown Metadata key %q (known: %s)",
					loc, key.Text, strings.Join(MetadataKeys, ", "))
			}
		}
		for _, a := range n.Args {
			if err := checkMetadataKeys(t, a); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkBranch(t *template.Template, b *parse.BranchNode) error {
	if err := checkMetadataKeys(t, b.Pipe); err != nil {
		return err
	}
	if err := checkMetadataKeys(t, b.List); err != nil {
		return err
	}
	return checkMetadataKeys(t, b.ElseList)
}

func knownMetadataKey(k string) bool {
	for _, m := range MetadataKeys {
		if m == k {
			return true
		}
	}
	return false
}

// checkData is the value templates are checked against: zero everywhere,
// but with something behind every pointer and in every list so that every
// field path of Data can be evaluated.
func checkData() *Data {
	md := map[string]string{}
	for _, k := range MetadataKeys {
		md[k] = ""
	}
	f := Finding{Subjects: []string{""}, Evidence: []Evidence{{}}}
	return &Data{
		Metadata: md,
		Primary:  &f,
		Findings: []Finding{f},
		Replicas: []report.Replica{{}},
		Progress: &Progress{},
		Nodes:    []string{""},
		Notes:    []string{""},
	}
}

// render executes the system and user templates for a job.
func (ts *templates) render(job *report.Job, rep *report.Report, lang string) (system, user string, err error) {
	lang = normLang(lang)
	d := NewData(job, rep, lang)
	kind := strings.ToLower(job.Kind)
	ut, ok := ts.user[lang][kind]
	if !ok {
		ut = ts.user[lang][defaultKind]
	}
	var sb, ub bytes.Buffer
	if err := ts.system[lang].Execute(&sb, d); err != nil {
		return "", "", fmt.Errorf("render system prompt: %w", err)
	}
	if err := ut.Execute(&ub, d); err != nil {
		return "", "", fmt.Errorf("render prompt for %s %s: %w", job.Kind, job.Key(), err)
	}
	// The data is redacted already; this pass catches secrets written into
	// an override template itself.
	return redact.String(strings.TrimSpace(sb.String())), redact.String(strings.TrimSpace(ub.String())), nil
}

func validLang(l string) bool { return i18n.Valid(l) }
