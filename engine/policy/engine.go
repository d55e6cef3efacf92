package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
	"go.yaml.in/yaml/v3"

	"github.com/traindoc/traindoc/engine/finding"
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
	// Rules, when set, are the only rule ids evaluated; SkipRules are
	// rule ids not evaluated. Both win over settings in data files.
	Rules     []string
	SkipRules []string
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
	tax        taxonomy
	acks       []Acknowledgement
	perRuleMu  sync.Mutex
	perRule    map[string]*rego.PreparedEvalQuery

	// Overridden lists built-in rules replaced by user policies.
	Overridden []string
	// Signatures are the log signatures the rules declare.
	Signatures []map[string]any
	// ProgressPatterns are the progress patterns the rules declare.
	ProgressPatterns []map[string]any
}

// Load parses, merges and compiles the policies and prepares the query.
func Load(ctx context.Context, opts Options) (*Engine, error) {
	files, compiler, overridden, err := compiled(opts)
	if err != nil {
		return nil, err
	}
	data, err := loadData(opts.DataFiles)
	if err != nil {
		return nil, err
	}
	e := &Engine{files: files, Overridden: overridden, store: inmem.NewFromObject(data), compiler: compiler}
	if err := e.readTaxonomy(ctx); err != nil {
		return nil, err
	}
	if e.rules, err = e.catalogue(); err != nil {
		return nil, err
	}
	if err := e.configure(ctx, opts); err != nil {
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

// builtinOnly caches the parsed and compiled built-in policies: they are
// the same for every load in a process, and parsing and compiling them is
// nearly all of a load's cost (a watcher's rounds, a test binary's many
// runs). A compiled compiler is only read afterwards, so engines share it.
var builtinOnly struct {
	once     sync.Once
	files    []*sourceFile
	compiler *ast.Compiler
	err      error
}

// compiled parses and compiles the policies the options name.
func compiled(opts Options) ([]*sourceFile, *ast.Compiler, []string, error) {
	if len(opts.Dirs) == 0 && !opts.NoBuiltin {
		b := &builtinOnly
		b.once.Do(func() { b.files, b.compiler, _, b.err = compile(opts) })
		return b.files, b.compiler, nil, b.err
	}
	return compile(opts)
}

func compile(opts Options) ([]*sourceFile, *ast.Compiler, []string, error) {
	var builtin []*sourceFile
	if !opts.NoBuiltin {
		var err error
		builtin, err = parseFS(policies.FS, ".", "builtin:", true)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("built-in policies: %w", err)
		}
	}
	var user []*sourceFile
	for _, d := range opts.Dirs {
		fs, err := parseDir(d)
		if err != nil {
			return nil, nil, nil, err
		}
		user = append(user, fs...)
	}
	if err := checkUserPackages(user); err != nil {
		return nil, nil, nil, err
	}
	files, overridden := merge(builtin, user)
	modules := map[string]*ast.Module{}
	for _, f := range files {
		if f.Test {
			continue
		}
		modules[f.Name] = f.Module
	}
	c := ast.NewCompiler()
	if c.Compile(modules); c.Failed() {
		return nil, nil, nil, fmt.Errorf("compile policies: %w", c.Errors)
	}
	return files, c, overridden, nil
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

// taxonomy is what the policies say about categories beyond their layer
// (data.traindoc.taxonomy): which are risks, which are fallbacks and at
// what scope, which root causes a restart can fix, and the orders of
// layers.
type taxonomy struct {
	Layers          []string       `json:"layers"`
	RootOrder       []string       `json:"root_order"`
	Risks           []string       `json:"risks"`
	Held            []string       `json:"held"`
	Fallback        []string       `json:"fallback"`
	FallbackJob     []string       `json:"fallback_job"`
	NoCause         []string       `json:"no_cause"`
	FallbackSubject map[string]int `json:"fallback_subject"`
	Retryable       []string       `json:"retryable"`
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
	v, err = e.evalOnce(ctx, "data.traindoc.taxonomy")
	if err != nil {
		return err
	}
	if err := roundTrip(v, &e.tax); err != nil {
		return fmt.Errorf("data.traindoc.taxonomy: %w", err)
	}
	return e.checkTaxonomy()
}

// checkTaxonomy rejects a taxonomy that names categories it does not
// define or leaves a layer out of an order: either would silently change
// which finding is the primary.
func (e *Engine) checkTaxonomy() error {
	var errs []string
	known := func(what string, cats ...string) {
		for _, c := range cats {
			if _, ok := e.categories[c]; !ok {
				errs = append(errs, fmt.Sprintf("%s names unknown category %q", what, c))
			}
		}
	}
	known("risks", e.tax.Risks...)
	known("held", e.tax.Held...)
	known("fallback", e.tax.Fallback...)
	known("fallback_job", e.tax.FallbackJob...)
	known("no_cause", e.tax.NoCause...)
	known("fallback_subject", slices.Collect(maps.Keys(e.tax.FallbackSubject))...)
	known("retryable", e.tax.Retryable...)
	for c, layer := range e.categories {
		for what, order := range map[string][]string{"layers": e.tax.Layers, "root_order": e.tax.RootOrder} {
			if !slices.Contains(order, layer) {
				errs = append(errs, fmt.Sprintf("%s lacks layer %q of category %q", what, layer, c))
			}
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("data.traindoc.taxonomy: %s", strings.Join(slices.Compact(errs), "; "))
	}
	return nil
}

// Fallback reports whether a category is dropped when another finding
// explains it (its definition says "no more specific cause found").
func (e *Engine) Fallback(category string) bool { return slices.Contains(e.tax.Fallback, category) }

// JobFallback reports whether a category is dropped when the job has any
// other fault.
func (e *Engine) JobFallback(category string) bool {
	return slices.Contains(e.tax.FallbackJob, category)
}

// NoCause reports whether a fault says only that something failed, not
// why, so that it does not count as the cause of a failed job.
func (e *Engine) NoCause(category string) bool { return slices.Contains(e.tax.NoCause, category) }

// SubjectFallback returns the rank of a per-container fallback category
// (lower is more specific) and whether the category is one.
func (e *Engine) SubjectFallback(category string) (rank int, ok bool) {
	rank, ok = e.tax.FallbackSubject[category]
	return rank, ok
}

// Held reports whether a category means someone holds the job on purpose
// (suspended, debug mode).
func (e *Engine) Held(category string) bool { return slices.Contains(e.tax.Held, category) }

// Risk reports whether a category is a risk rather than an observed fault.
func (e *Engine) Risk(category string) bool { return slices.Contains(e.tax.Risks, category) }

// Retryable reports whether a root cause of category is one a restart
// from the newest checkpoint can fix.
func (e *Engine) Retryable(category string) bool { return slices.Contains(e.tax.Retryable, category) }

// Layers are the layers in the order of the diagnosis process.
func (e *Engine) Layers() []string { return slices.Clone(e.tax.Layers) }

// RootRank orders independent root causes of equal severity by layer:
// lower ranks first.
func (e *Engine) RootRank(layer string) int {
	if i := slices.Index(e.tax.RootOrder, layer); i >= 0 {
		return i
	}
	return len(e.tax.RootOrder)
}

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
	// Retryable, when false, says a restart repeats this finding even
	// though its category is retryable; true changes nothing.
	Retryable *bool `json:"retryable,omitempty"`
}

// RuleOf returns the rule that emitted the finding.
func (e *Engine) RuleOf(f *RawFinding) *Rule {
	return e.rules[RulesRoot+"."+strings.Join(f.RulePath, ".")]
}

// Problem is a fault of one rule on one job: it failed to evaluate, or
// emitted a finding that does not decode. It is reported as a warning on
// the job; the other rules' findings still stand.
type Problem struct {
	Rule     string // rule id, or the package when it has none
	Location string // file:line of the rule or of the failing expression
	Message  string
}

func (p Problem) String() string {
	if p.Location == "" {
		return fmt.Sprintf("rule %s: %s", p.Rule, p.Message)
	}
	return fmt.Sprintf("rule %s (%s): %s", p.Rule, p.Location, p.Message)
}

// Eval runs every rule against one job's evidence (any JSON-marshalable
// value) and returns the findings sorted deterministically. A rule that
// fails to evaluate, or a finding that does not decode, is returned as a
// Problem and leaves every other rule's findings intact; the error is only
// for what stops every rule (an input that cannot be converted, a
// cancelled context).
func (e *Engine) Eval(ctx context.Context, input any) ([]RawFinding, []Problem, error) {
	v, err := toValue(input)
	if err != nil {
		return nil, nil, err
	}
	var (
		values   []any
		problems []Problem
	)
	// The router evaluates every rule in one query. When any rule raises
	// an error the whole query fails, so the rules are then evaluated one
	// package at a time to keep the others' findings and name the one
	// that failed.
	rs, err := e.findings.Eval(ctx, rego.EvalParsedInput(v))
	switch {
	case ctx.Err() != nil:
		return nil, nil, ctx.Err()
	case err == nil:
		values = resultValues(rs)
	default:
		values, problems, err = e.evalEach(ctx, v)
		if err != nil {
			return nil, nil, err
		}
	}
	out := make([]RawFinding, 0, len(values))
	for _, x := range values {
		f, ps, ok := e.decodeFinding(x)
		problems = append(problems, ps...)
		if !ok {
			continue
		}
		r := e.RuleOf(&f)
		if !r.Enabled {
			continue
		}
		if r.SeverityOverride != "" {
			f.Severity = r.SeverityOverride
		}
		out = append(out, f)
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
	sort.Slice(problems, func(a, b int) bool { return problems[a].String() < problems[b].String() })
	return sorted, problems, nil
}

func resultValues(rs rego.ResultSet) []any {
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil
	}
	xs, _ := rs[0].Expressions[0].Value.([]any)
	return xs
}

// evalEach evaluates each rule package on its own.
func (e *Engine) evalEach(ctx context.Context, input ast.Value) ([]any, []Problem, error) {
	var (
		values   []any
		problems []Problem
	)
	for _, r := range e.Rules() {
		q, err := e.ruleQuery(ctx, r)
		if err != nil {
			problems = append(problems, Problem{Rule: r.ID, Location: r.location(), Message: err.Error()})
			continue
		}
		rs, err := q.Eval(ctx, rego.EvalParsedInput(input))
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if err != nil {
			problems = append(problems, evalProblem(r, err))
			continue
		}
		path := strings.Split(strings.TrimPrefix(r.Package, RulesRoot+"."), ".")
		for _, x := range resultValues(rs) {
			if m, ok := x.(map[string]any); ok {
				m["rule_path"] = []any{path[0], path[1]}
			}
			values = append(values, x)
		}
	}
	return values, problems, nil
}

// ruleQuery prepares, once, the query of one rule package's findings.
func (e *Engine) ruleQuery(ctx context.Context, r *Rule) (*rego.PreparedEvalQuery, error) {
	e.perRuleMu.Lock()
	defer e.perRuleMu.Unlock()
	if q, ok := e.perRule[r.Package]; ok {
		return q, nil
	}
	q, err := rego.New(
		rego.Compiler(e.compiler),
		rego.Store(e.store),
		rego.Query("data."+r.Package+".findings"),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if e.perRule == nil {
		e.perRule = map[string]*rego.PreparedEvalQuery{}
	}
	e.perRule[r.Package] = &q
	return &q, nil
}

// evalProblem names the rule and, when OPA gives one, the location of the
// expression that failed.
func evalProblem(r *Rule, err error) Problem {
	p := Problem{Rule: r.ID, Location: r.location(), Message: err.Error()}
	var te *topdown.Error
	if errors.As(err, &te) {
		p.Message = te.Code + ": " + te.Message
		if te.Location != nil {
			p.Location = fmt.Sprintf("%s:%d", te.Location.File, te.Location.Row)
		}
	}
	return p
}

func (r *Rule) location() string {
	if r.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", r.File, r.Line)
}

// decodeFinding turns one value of a rule's findings set into a
// RawFinding, checking what the engine relies on: an object from a known
// rule, a subject object, a list of evidence objects, a valid severity and
// category override. What does not decode is left out and reported as a
// problem; the rest of the finding is kept, so one malformed field never
// hides the finding itself.
func (e *Engine) decodeFinding(x any) (RawFinding, []Problem, bool) {
	var f RawFinding
	m, ok := x.(map[string]any)
	if !ok {
		return f, []Problem{{Rule: "?", Message: fmt.Sprintf("a finding must be an object, got %s; it is dropped", jsonKind(x))}}, false
	}
	path, _ := m["rule_path"].([]any)
	pkg := RulesRoot
	for _, p := range path {
		pkg += fmt.Sprintf(".%v", p)
	}
	r := e.rules[pkg]
	if r == nil {
		return f, []Problem{{Rule: pkg, Message: "the package has no METADATA block; its findings are ignored"}}, false
	}
	var problems []Problem
	bad := func(format string, args ...any) {
		problems = append(problems, Problem{Rule: r.ID, Location: r.location(), Message: fmt.Sprintf(format, args...)})
	}
	if sub, ok := m["subject"]; ok {
		sm, isObj := sub.(map[string]any)
		name, _ := sm["name"].(string)
		if !isObj || name == "" {
			bad("subject must be an object with kind and name, got %s; the finding is kept without it", jsonKind(sub))
			delete(m, "subject")
		}
	}
	if ev, ok := m["evidence"]; ok {
		list, isList := ev.([]any)
		if !isList {
			bad("evidence must be a list, got %s; it is left out", jsonKind(ev))
			delete(m, "evidence")
		} else {
			kept := make([]any, 0, len(list))
			for i, item := range list {
				if _, isObj := item.(map[string]any); !isObj {
					bad("evidence[%d] must be an object, got %s; it is left out", i, jsonKind(item))
					continue
				}
				kept = append(kept, item)
			}
			m["evidence"] = kept
		}
	}
	for _, k := range []string{"severity", "category", "owner", "time"} {
		if v, ok := m[k]; ok {
			if _, isStr := v.(string); !isStr {
				bad("%s must be a string, got %s; the rule's own is used", k, jsonKind(v))
				delete(m, k)
			}
		}
	}
	if v, ok := m["retryable"]; ok {
		if _, isBool := v.(bool); !isBool {
			bad("retryable must be a boolean, got %s; the category decides", jsonKind(v))
			delete(m, "retryable")
		}
	}
	if p, ok := m["params"]; ok {
		if _, isObj := p.(map[string]any); !isObj {
			bad("params must be an object, got %s; they are left out", jsonKind(p))
			delete(m, "params")
		}
	}
	if err := roundTrip(m, &f); err != nil {
		bad("finding does not decode: %v; it is dropped", err)
		return f, problems, false
	}
	if f.Severity != "" && !finding.ValidSeverity(f.Severity) {
		bad("severity %q is not info, warning, error or critical; the rule's %s is used", f.Severity, r.Severity)
		f.Severity = ""
	}
	if f.Category != "" {
		if _, ok := e.categories[f.Category]; !ok {
			bad("category %q is not a known category; the rule's %s is used", f.Category, r.Category)
			f.Category = ""
		}
	}
	if f.Owner != "" && !finding.ValidOwner(f.Owner) {
		bad("owner %q is not user, platform or hardware; the rule's %s is used", f.Owner, r.Owner)
		f.Owner = ""
	}
	return f, problems, true
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, int:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

func roundTrip(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
