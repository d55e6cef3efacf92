package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"gopkg.in/yaml.v3"

	"github.com/traindoc/traindoc/policies"
)

// Options configure loading.
type Options struct {
	// Dirs are user policy directories, applied in order over the built-in
	// rules.
	Dirs []string
	// DataFiles are JSON or YAML files merged into data (thresholds...).
	DataFiles []string
	// NoBuiltin loads only the user directories (for rule tests).
	NoBuiltin bool
}

// Engine is a compiled rule set with its prepared query.
type Engine struct {
	compiler   *ast.Compiler
	store      storage.Store
	findings   rego.PreparedEvalQuery
	rules      map[string]*Rule // by package path
	files      []*sourceFile
	categories map[string]string
	explains   map[string]map[string]bool
	fallback   map[string]bool

	// Overridden lists built-in rules replaced by user policies.
	Overridden []string
	// Signatures are the log signatures the rules declare.
	Signatures []map[string]any
	// ProgressPatterns are the progress patterns the rules declare.
	ProgressPatterns []map[string]any
}

// Load parses, merges and compiles the policies and prepares the query.
func Load(ctx context.Context, opts Options) (*Engine, error) {
	var builtin []*sourceFile
	if !opts.NoBuiltin {
		var err error
		builtin, err = parseFS(policies.FS, ".", "builtin:", true)
		if err != nil {
			return nil, fmt.Errorf("built-in policies: %w", err)
		}
	}
	var user []*sourceFile
	for _, d := range opts.Dirs {
		fs, err := parseDir(d)
		if err != nil {
			return nil, err
		}
		user = append(user, fs...)
	}
	if err := checkUserPackages(user); err != nil {
		return nil, err
	}
	files, overridden := merge(builtin, user)
	data, err := loadData(opts.DataFiles)
	if err != nil {
		return nil, err
	}
	e := &Engine{files: files, Overridden: overridden, store: inmem.NewFromObject(data)}

	modules := map[string]*ast.Module{}
	for _, f := range files {
		if f.Test {
			continue
		}
		modules[f.Name] = f.Module
	}
	e.compiler = ast.NewCompiler()
	if e.compiler.Compile(modules); e.compiler.Failed() {
		return nil, fmt.Errorf("compile policies: %w", e.compiler.Errors)
	}
	if err := e.readTaxonomy(ctx); err != nil {
		return nil, err
	}
	if e.rules, err = e.catalogue(); err != nil {
		return nil, err
	}
	e.findings, err = rego.New(
		rego.Compiler(e.compiler),
		rego.Store(e.store),
		rego.Query("data.traindoc.main.findings"),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare findings query: %w", err)
	}
	if e.Signatures, err = e.declared(ctx, "data.traindoc.main.signatures"); err != nil {
		return nil, err
	}
	if e.ProgressPatterns, err = e.declared(ctx, "data.traindoc.main.progress_patterns"); err != nil {
		return nil, err
	}
	return e, nil
}

// loadData merges data files into one document.
func loadData(paths []string) (map[string]any, error) {
	out := map[string]any{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("data file: %w", err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("data file %s: %w", p, err)
		}
		deepMerge(out, doc)
	}
	// Round-trip through JSON so that YAML's map types become JSON ones.
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("data files: %w", err)
	}
	var norm map[string]any
	if err := json.Unmarshal(b, &norm); err != nil {
		return nil, fmt.Errorf("data files: %w", err)
	}
	return norm, nil
}

func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				deepMerge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// evalOnce evaluates a query with no input and returns its value.
func (e *Engine) evalOnce(ctx context.Context, query string) (any, error) {
	rs, err := rego.New(rego.Compiler(e.compiler), rego.Store(e.store), rego.Query(query)).Eval(ctx)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", query, err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, nil
	}
	return rs[0].Expressions[0].Value, nil
}

func (e *Engine) declared(ctx context.Context, query string) ([]map[string]any, error) {
	v, err := e.evalOnce(ctx, query)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	if err := roundTrip(v, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	return out, nil
}

func (e *Engine) readTaxonomy(ctx context.Context) error {
	v, err := e.evalOnce(ctx, "data.traindoc.taxonomy.categories")
	if err != nil {
		return err
	}
	if err := roundTrip(v, &e.categories); err != nil || len(e.categories) == 0 {
		return fmt.Errorf("policies define no categories (data.traindoc.taxonomy.categories)")
	}
	v, err = e.evalOnce(ctx, "data.traindoc.taxonomy.explains")
	if err != nil {
		return err
	}
	var rel map[string][]string
	if err := roundTrip(v, &rel); err != nil {
		return fmt.Errorf("data.traindoc.taxonomy.explains: %w", err)
	}
	e.explains = map[string]map[string]bool{}
	for cause, effects := range rel {
		for _, eff := range effects {
			e.addExplains(cause, eff)
		}
	}
	v, err = e.evalOnce(ctx, "data.traindoc.taxonomy.fallback")
	if err != nil {
		return err
	}
	var fallback []string
	if err := roundTrip(v, &fallback); err != nil {
		return fmt.Errorf("data.traindoc.taxonomy.fallback: %w", err)
	}
	e.fallback = map[string]bool{}
	for _, c := range fallback {
		e.fallback[c] = true
	}
	return nil
}

// Fallback reports whether a category is only reported when nothing
// explains it (its definition says "no more specific cause found").
func (e *Engine) Fallback(category string) bool { return e.fallback[category] }

func (e *Engine) addExplains(cause, effect string) {
	if e.explains[cause] == nil {
		e.explains[cause] = map[string]bool{}
	}
	e.explains[cause][effect] = true
}

// Categories maps each category to its layer.
func (e *Engine) Categories() map[string]string { return e.categories }

// Explains reports whether a finding of category cause can explain one of
// category effect.
func (e *Engine) Explains(cause, effect string) bool { return e.explains[cause][effect] }

// RawFinding is a finding as a rule emitted it.
type RawFinding struct {
	RulePath []string         `json:"rule_path"`
	Subject  *json.RawMessage `json:"subject,omitempty"`
	Params   map[string]any   `json:"params,omitempty"`
	Evidence json.RawMessage  `json:"evidence,omitempty"`
	Time     string           `json:"time,omitempty"`
	Severity string           `json:"severity,omitempty"`
	Category string           `json:"category,omitempty"`
	Owner    string           `json:"owner,omitempty"`
}

// Rule returns the rule that emitted the finding.
func (e *Engine) RuleOf(f *RawFinding) *Rule {
	return e.rules[RulesRoot+"."+strings.Join(f.RulePath, ".")]
}

// Eval runs every rule against one job's evidence (any JSON-marshalable
// value) and returns the findings sorted deterministically.
func (e *Engine) Eval(ctx context.Context, input any) ([]RawFinding, error) {
	b, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("encode input: %w", err)
	}
	v, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("convert input: %w", err)
	}
	rs, err := e.findings.Eval(ctx, rego.EvalParsedInput(v))
	if err != nil {
		return nil, fmt.Errorf("evaluate rules: %w", err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, nil
	}
	var out []RawFinding
	if err := roundTrip(rs[0].Expressions[0].Value, &out); err != nil {
		return nil, fmt.Errorf("decode findings: %w", err)
	}
	for i := range out {
		if e.RuleOf(&out[i]) == nil {
			return nil, fmt.Errorf("finding from traindoc.rules.%s: the package has no METADATA (title, custom.id, category, severity)", strings.Join(out[i].RulePath, "."))
		}
	}
	// Rego sets have no order we may rely on; sort by each finding's
	// canonical JSON, computed once per finding.
	keys := make([]string, len(out))
	for i := range out {
		k, _ := json.Marshal(out[i])
		keys[i] = string(k)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	sorted := make([]RawFinding, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted, nil
}

func roundTrip(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
