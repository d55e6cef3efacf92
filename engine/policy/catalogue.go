package policy

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/traindoc/traindoc/engine/finding"
)

// Rule is one rule package as its METADATA describes it.
type Rule struct {
	ID      string
	Package string
	// Enabled is false for a rule switched off by settings or by the
	// rule selection of one run.
	Enabled bool
	// SeverityOverride is the severity a user setting gives every finding
	// of the rule, or "".
	SeverityOverride string
	Title            finding.Text
	Description      finding.Text
	Category         string
	Layer            string
	Severity         string
	Owner            string
	Message          finding.Text
	Remediation      finding.Text
	// Explains lists categories this rule's findings explain, in addition
	// to the taxonomy's relation.
	Explains []string
	// Related are links from related_resources.
	Related []string
	File    string
	Line    int
	Builtin bool
	// Source is the rule's Rego source.
	Source string

	msgEn, msgZh *template.Template
}

// catalogue reads the METADATA of every rule package and validates it.
func (e *Engine) catalogue() (map[string]*Rule, error) {
	sources := map[string]*sourceFile{}
	for _, f := range e.files {
		sources[f.Name] = f
	}
	rules := map[string]*Rule{}
	ids := map[string]string{}
	var errs []string
	for _, ref := range e.compiler.GetAnnotationSet().Flatten() {
		a := ref.Annotations
		if a == nil || a.Scope != "package" {
			continue
		}
		pkg := strings.TrimPrefix(ref.Path.String(), "data.")
		if !strings.HasPrefix(pkg, RulesRoot+".") || strings.HasSuffix(pkg, "_test") {
			continue
		}
		loc := "?"
		r := &Rule{Package: pkg}
		if a.Location != nil {
			loc = fmt.Sprintf("%s:%d", a.Location.File, a.Location.Row)
			r.File, r.Line = a.Location.File, a.Location.Row
			if f := sources[a.Location.File]; f != nil {
				r.Builtin, r.Source = f.Builtin, string(f.Source)
			}
		}
		if err := r.fill(pkg, a, e.categories); err != nil {
			errs = append(errs, fmt.Sprintf("%s: rule %s: %v", loc, pkg, err))
			continue
		}
		if other, dup := ids[r.ID]; dup {
			errs = append(errs, fmt.Sprintf("%s: rule id %q already used by %s", loc, r.ID, other))
			continue
		}
		ids[r.ID] = pkg
		rules[pkg] = r
		for _, eff := range r.Explains {
			e.addExplains(r.Category, eff)
		}
	}
	// A rule package with findings but no METADATA is an authoring error.
	for _, f := range e.files {
		if f.Test {
			continue
		}
		pkg := packagePath(f.Module)
		if strings.HasPrefix(pkg, RulesRoot+".") && rules[pkg] == nil && !hasErrorFor(errs, pkg) && definesFindings(f.Module) {
			errs = append(errs, fmt.Sprintf("%s:%d: rule %s: missing # METADATA block before the package line", f.Name, f.Module.Package.Location.Row, pkg))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, fmt.Errorf("invalid rule metadata:\n  %s", strings.Join(errs, "\n  "))
	}
	return rules, nil
}

func hasErrorFor(errs []string, pkg string) bool {
	for _, e := range errs {
		if strings.Contains(e, pkg) {
			return true
		}
	}
	return false
}

func definesFindings(m *ast.Module) bool {
	for _, r := range m.Rules {
		if r.Head.Name.String() == "findings" || (len(r.Head.Reference) > 0 && r.Head.Reference[0].Value.String() == "findings") {
			return true
		}
	}
	return false
}

// RuleID is the id a rule package's path gives it:
// traindoc.rules.exec.cuda_oom is "exec-cuda-oom". ok is false when the
// package is not shaped traindoc.rules.<area>.<name>.
func RuleID(pkg string) (id string, ok bool) {
	area, name, ok := ruleParts(pkg)
	if !ok {
		return "", false
	}
	return area + "-" + strings.ReplaceAll(name, "_", "-"), true
}

// defaultCategory is the category a rule's path suggests
// (exec.cuda_oom → exec.cuda-oom); METADATA's custom.category overrides it.
func defaultCategory(pkg string) string {
	area, name, _ := ruleParts(pkg)
	return area + "." + strings.ReplaceAll(name, "_", "-")
}

var rulePartPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func ruleParts(pkg string) (area, name string, ok bool) {
	rest, found := strings.CutPrefix(pkg, RulesRoot+".")
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 2 || !rulePartPattern.MatchString(parts[0]) || !rulePartPattern.MatchString(parts[1]) {
		return "", "", false
	}
	return parts[0], parts[1], true
}

func (r *Rule) fill(pkg string, a *ast.Annotations, categories map[string]string) error {
	c := a.Custom
	str := func(m map[string]any, k string) string {
		s, _ := m[k].(string)
		return strings.TrimSpace(s)
	}
	text := func(k string) finding.Text {
		m, _ := c[k].(map[string]any)
		return finding.Text{En: str(m, "en"), Zh: str(m, "zh")}
	}
	zh, _ := c["zh"].(map[string]any)
	id, ok := RuleID(pkg)
	if !ok {
		return fmt.Errorf("package must be %s.<area>.<name> (lower-case letters, digits and underscores): the rule's id and default category come from it", RulesRoot)
	}
	if given := str(c, "id"); given != "" && given != id {
		return fmt.Errorf("custom.id %q differs from %q, the id the package path gives; remove custom.id", given, id)
	}
	r.ID = id
	r.Title = finding.Text{En: strings.TrimSpace(a.Title), Zh: str(zh, "title")}
	r.Description = finding.Text{En: strings.TrimSpace(a.Description), Zh: str(zh, "description")}
	r.Category = cmp.Or(str(c, "category"), defaultCategory(pkg))
	r.Severity = str(c, "severity")
	r.Owner = str(c, "owner")
	r.Message = text("message")
	r.Remediation = text("remediation")
	if xs, ok := c["explains"].([]any); ok {
		for _, x := range xs {
			if s, ok := x.(string); ok {
				r.Explains = append(r.Explains, s)
			}
		}
	}
	for _, rr := range a.RelatedResources {
		if rr.Ref.String() != "" {
			r.Related = append(r.Related, rr.Ref.String())
		}
	}
	var missing []string
	for k, v := range map[string]string{
		"title": r.Title.En, "description": r.Description.En,
		"custom.severity": r.Severity, "custom.owner": r.Owner,
		"custom.zh.title": r.Title.Zh, "custom.zh.description": r.Description.Zh,
		"custom.remediation.en": r.Remediation.En, "custom.remediation.zh": r.Remediation.Zh,
	} {
		if v == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("METADATA lacks %s", strings.Join(missing, ", "))
	}
	layer, ok := categories[r.Category]
	if !ok {
		return fmt.Errorf("category %q is not a known category (data.traindoc.taxonomy.categories); set custom.category", r.Category)
	}
	r.Layer = layer
	if !finding.ValidSeverity(r.Severity) {
		return fmt.Errorf("custom.severity %q must be info, warning, error or critical", r.Severity)
	}
	if !finding.ValidOwner(r.Owner) {
		return fmt.Errorf("custom.owner %q must be user, platform or hardware", r.Owner)
	}
	for _, eff := range r.Explains {
		if _, ok := categories[eff]; !ok {
			return fmt.Errorf("custom.explains: unknown category %q", eff)
		}
	}
	if r.Message.En == "" {
		r.Message = finding.Text{En: r.Title.En, Zh: r.Title.Zh}
	}
	if r.Message.Zh == "" {
		return fmt.Errorf("custom.message.zh is missing while custom.message.en is set")
	}
	var err error
	if r.msgEn, err = template.New(r.ID + ".en").Option("missingkey=zero").Funcs(textFuncs).Parse(r.Message.En); err != nil {
		return fmt.Errorf("custom.message.en: %w", err)
	}
	if r.msgZh, err = template.New(r.ID + ".zh").Option("missingkey=zero").Funcs(textFuncs).Parse(r.Message.Zh); err != nil {
		return fmt.Errorf("custom.message.zh: %w", err)
	}
	return nil
}

var textFuncs = template.FuncMap{
	"join": func(sep string, xs any) string {
		list, ok := xs.([]any)
		if !ok {
			return fmt.Sprint(xs)
		}
		parts := make([]string, len(list))
		for i, x := range list {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, sep)
	},
}

// RenderMessage fills the rule's message templates with a finding's
// parameters. Parameter values are data; they are never parsed as
// templates.
func (r *Rule) RenderMessage(params map[string]any) finding.Text {
	run := func(t *template.Template) string {
		var b bytes.Buffer
		if err := t.Execute(&b, params); err != nil {
			return t.Root.String()
		}
		return strings.ReplaceAll(b.String(), "<no value>", "?")
	}
	return finding.Text{En: run(r.msgEn), Zh: run(r.msgZh)}
}

// Rules returns every rule sorted by id.
func (e *Engine) Rules() []*Rule {
	out := make([]*Rule, 0, len(e.rules))
	for _, r := range e.rules {
		out = append(out, r)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}
