package policy

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v3"

	"github.com/traindoc/traindoc/engine/finding"
)

// thresholdSpec is one entry of data.traindoc.lib.config.threshold_schema.
type thresholdSpec struct {
	Default     any      `json:"default"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	Description string   `json:"description"`
}

// RuleSetting is what settings.rules.<id> in a data file may say.
type RuleSetting struct {
	Enabled  *bool
	Severity string
}

// settingsKeys are the keys settings may hold.
var settingsKeys = []string{"thresholds", "rules", "acknowledge"}

// Acknowledgement accepts a known issue: findings of Rule on the jobs Job
// names (namespace/name, name, or "" for every job) are shown but not
// counted and never fail a gate.
type Acknowledgement struct {
	Rule   string
	Job    string
	Reason string
	// Where is file:line of the entry, shown on the acknowledged finding.
	Where string
}

// checkSettings validates the settings of every data file against the
// threshold schema the policies declare and the rule catalogue, and
// collects the per-rule settings. Each problem names the file and line:
// a quoted number, a misspelled key or an unknown rule would otherwise
// switch a rule off or leave it on without a word.
func (e *Engine) checkSettings(ctx context.Context, paths []string) (map[string]RuleSetting, error) {
	v, err := e.evalOnce(ctx, "data.traindoc.lib.config.threshold_schema")
	if err != nil {
		return nil, err
	}
	var schema map[string]thresholdSpec
	if err := roundTrip(v, &schema); err != nil {
		return nil, fmt.Errorf("data.traindoc.lib.config.threshold_schema: %w", err)
	}
	ruleIDs := make([]string, 0, len(e.rules))
	for _, r := range e.rules {
		ruleIDs = append(ruleIDs, r.ID)
	}
	sort.Strings(ruleIDs)
	c := &settingsChecker{schema: schema, ruleIDs: ruleIDs, rules: map[string]RuleSetting{}}
	defer func() { e.acks = c.acks }()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("data file: %w", err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("data file %s: %w", p, err)
		}
		c.file = p
		if len(doc.Content) > 0 {
			c.document(doc.Content[0])
		}
	}
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("invalid settings:\n  %s", strings.Join(c.errs, "\n  "))
	}
	return c.rules, nil
}

type settingsChecker struct {
	schema  map[string]thresholdSpec
	ruleIDs []string
	rules   map[string]RuleSetting
	acks    []Acknowledgement
	file    string
	errs    []string
}

func (c *settingsChecker) fail(n *yaml.Node, format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf("%s:%d: %s", c.file, n.Line, fmt.Sprintf(format, args...)))
}

// pairs walks a mapping node, or reports that it is not one.
func (c *settingsChecker) pairs(n *yaml.Node, path string, each func(key, val *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		c.fail(n, "%s must be a mapping, got %s", path, describe(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		each(n.Content[i], n.Content[i+1])
	}
}

func (c *settingsChecker) document(root *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		c.fail(root, "a data file must be a mapping, got %s", describe(root))
		return
	}
	c.pairs(root, "the data file", func(k, v *yaml.Node) {
		if k.Value != "settings" {
			// Other top-level keys are data for user rules.
			return
		}
		c.pairs(v, "settings", func(k, v *yaml.Node) {
			switch k.Value {
			case "thresholds":
				c.pairs(v, "settings.thresholds", c.threshold)
			case "rules":
				c.pairs(v, "settings.rules", c.rule)
			case "acknowledge":
				c.acknowledge(v)
			default:
				c.fail(k, "settings.%s is not a setting%s", k.Value, suggest(k.Value, settingsKeys))
			}
		})
	})
}

func (c *settingsChecker) threshold(k, v *yaml.Node) {
	path := "settings.thresholds." + k.Value
	spec, ok := c.schema[k.Value]
	if !ok {
		c.fail(k, "%s is not a threshold%s", path, suggest(k.Value, slices.Sorted(maps.Keys(c.schema))))
		return
	}
	var x float64
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || v.Decode(&x) != nil {
		c.fail(v, "%s must be a number (%s), got %s", path, spec.Description, describe(v))
		return
	}
	if spec.Min != nil && x < *spec.Min {
		c.fail(v, "%s is %v, below its minimum %v", path, x, *spec.Min)
	}
	if spec.Max != nil && x > *spec.Max {
		c.fail(v, "%s is %v, above its maximum %v", path, x, *spec.Max)
	}
}

func (c *settingsChecker) rule(k, v *yaml.Node) {
	id := k.Value
	if _, ok := slices.BinarySearch(c.ruleIDs, id); !ok {
		c.fail(k, "settings.rules.%s: no rule has this id%s (see traindoc rules list)", id, suggest(id, c.ruleIDs))
		return
	}
	set := c.rules[id]
	c.pairs(v, "settings.rules."+id, func(k, v *yaml.Node) {
		path := "settings.rules." + id + "." + k.Value
		switch k.Value {
		case "enabled":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
				c.fail(v, "%s must be true or false, got %s", path, describe(v))
				return
			}
			set.Enabled = &b
		case "severity":
			if v.Kind != yaml.ScalarNode || !finding.ValidSeverity(v.Value) {
				c.fail(v, "%s must be info, warning, error or critical, got %s", path, describe(v))
				return
			}
			set.Severity = v.Value
		default:
			c.fail(k, "%s is not a rule setting%s", path, suggest(k.Value, []string{"enabled", "severity"}))
		}
	})
	c.rules[id] = set
}

// acknowledge reads settings.acknowledge: a list of {rule, job, reason}.
func (c *settingsChecker) acknowledge(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		c.fail(n, "settings.acknowledge must be a list of {rule, job, reason}, got %s", describe(n))
		return
	}
	for i, item := range n.Content {
		path := fmt.Sprintf("settings.acknowledge[%d]", i)
		a := Acknowledgement{Where: fmt.Sprintf("%s:%d", c.file, item.Line)}
		c.pairs(item, path, func(k, v *yaml.Node) {
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
				c.fail(v, "%s.%s must be a string, got %s", path, k.Value, describe(v))
				return
			}
			switch k.Value {
			case "rule":
				a.Rule = v.Value
				if _, ok := slices.BinarySearch(c.ruleIDs, v.Value); !ok {
					c.fail(v, "%s.rule %s: no rule has this id%s", path, v.Value, suggest(v.Value, c.ruleIDs))
				}
			case "job":
				a.Job = v.Value
			case "reason":
				a.Reason = v.Value
			default:
				c.fail(k, "%s.%s is not a field%s", path, k.Value, suggest(k.Value, []string{"rule", "job", "reason"}))
			}
		})
		if a.Rule == "" {
			c.fail(item, "%s needs a rule", path)
			continue
		}
		c.acks = append(c.acks, a)
	}
}

// AcknowledgeAnnotation on a job lists rule ids whose findings on that job
// are acknowledged, comma-separated.
const AcknowledgeAnnotation = "traindoc.dev/ignore"

// Acknowledged says whether findings of rule on the job namespace/name are
// acknowledged, and by what: a settings entry or the job's annotation.
func (e *Engine) Acknowledged(rule, namespace, name string, annotations map[string]string) (bool, string) {
	for _, a := range e.acks {
		if a.Rule == rule && (a.Job == "" || a.Job == name || a.Job == namespace+"/"+name) {
			return true, strings.TrimSuffix(a.Where+": "+a.Reason, ": ")
		}
	}
	for _, id := range strings.Split(annotations[AcknowledgeAnnotation], ",") {
		if strings.TrimSpace(id) == rule {
			return true, "annotation " + AcknowledgeAnnotation
		}
	}
	return false, ""
}

// describe says what a node holds, for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!null":
		return "nothing"
	}
	return fmt.Sprintf("%s %s", strings.TrimPrefix(n.Tag, "!!"), n.Value)
}

// suggest returns "; did you mean X?" for the closest known word, when one
// is close enough to be a likely typo.
func suggest(word string, known []string) string {
	best, dist := "", 0
	for _, k := range known {
		d := levenshtein.ComputeDistance(strings.ToLower(word), strings.ToLower(k))
		if best == "" || d < dist || (d == dist && k < best) {
			best, dist = k, d
		}
	}
	// A third of the word may differ (stall_secs → stall_seconds).
	if best == "" || dist > cmp.Or(max(len(word), len(best))/3, 1)+1 {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// configure applies the per-rule settings of the data files and the rule
// selection of the options to the catalogue: rules list shows the
// effective state, and Eval drops disabled rules' findings.
func (e *Engine) configure(ctx context.Context, opts Options) error {
	settings, err := e.checkSettings(ctx, opts.DataFiles)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(e.rules))
	byID := map[string]*Rule{}
	for _, r := range e.rules {
		r.Enabled = true
		ids = append(ids, r.ID)
		byID[r.ID] = r
	}
	sort.Strings(ids)
	for id, set := range settings {
		r := byID[id]
		if set.Enabled != nil {
			r.Enabled = *set.Enabled
		}
		r.SeverityOverride = set.Severity
	}
	var errs []string
	check := func(flag string, list []string) {
		for _, id := range list {
			if byID[id] == nil {
				errs = append(errs, fmt.Sprintf("%s %s: no rule has this id%s", flag, id, suggest(id, ids)))
			}
		}
	}
	check("--rules", opts.Rules)
	check("--skip-rules", opts.SkipRules)
	if len(errs) > 0 {
		return fmt.Errorf("%s (see traindoc rules list)", strings.Join(errs, "; "))
	}
	if len(opts.Rules) > 0 {
		for _, r := range e.rules {
			r.Enabled = slices.Contains(opts.Rules, r.ID)
		}
	}
	for _, id := range opts.SkipRules {
		byID[id].Enabled = false
	}
	return nil
}
