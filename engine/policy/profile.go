package policy

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/profiler"
	"github.com/open-policy-agent/opa/v1/rego"
)

// RuleCost is what evaluating one rule package on its own cost over a set
// of inputs. A rule evaluated alone pays for the library helpers it calls
// that the router's single query would share with other rules, so the
// costs add up to more than one evaluation of every rule.
type RuleCost struct {
	Rule    string
	Package string
	// Total is the wall time of Rounds evaluations of every input.
	Total  time.Duration
	Rounds int
	Inputs int
}

// PerInput is the mean cost of one evaluation on one input.
func (c RuleCost) PerInput() time.Duration {
	n := c.Rounds * c.Inputs
	if n == 0 {
		return 0
	}
	return c.Total / time.Duration(n)
}

// HotSpot is one Rego expression and the time OPA's profiler attributes to
// it over a set of inputs (the time between the expression's evaluation
// and the next, so what it enumerates is counted in it).
type HotSpot struct {
	Location string // file:row
	Text     string
	Time     time.Duration
	Evals    int
	Redos    int
}

// Profile is the cost of the rules over a set of inputs.
type Profile struct {
	Rules []RuleCost // costliest first
	Hot   []HotSpot  // costliest first
	// Steps counts the expression evaluations (first evaluations and
	// redos) of the whole rule set over every input once: unlike time, it
	// does not depend on what else the machine is doing.
	Steps int
}

// ProfileRules measures each enabled rule alone over inputs (rounds times
// each) and, with OPA's profiler, which expressions of the whole rule set
// cost the most (top of them). It is for finding what to optimise; it
// does not change what Eval returns.
func (e *Engine) ProfileRules(ctx context.Context, inputs []any, rounds, top int) (*Profile, error) {
	values := make([]ast.Value, len(inputs))
	for i, in := range inputs {
		v, err := toValue(in)
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		values[i] = v
	}
	p := &Profile{}
	for _, r := range e.Rules() {
		if !r.Enabled {
			continue
		}
		q, err := e.ruleQuery(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("rule %s: %w", r.ID, err)
		}
		c := RuleCost{Rule: r.ID, Package: r.Package, Rounds: rounds, Inputs: len(values)}
		start := time.Now()
		for range rounds {
			for _, v := range values {
				// A rule that fails on an input costs what it cost;
				// Eval reports the failure itself.
				_, _ = q.Eval(ctx, rego.EvalParsedInput(v))
			}
		}
		c.Total = time.Since(start)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.Rules = append(p.Rules, c)
	}
	sort.SliceStable(p.Rules, func(a, b int) bool { return p.Rules[a].Total > p.Rules[b].Total })
	if err := e.hotSpots(ctx, values, top, p); err != nil {
		return nil, err
	}
	return p, nil
}

func (e *Engine) hotSpots(ctx context.Context, values []ast.Value, top int, p *Profile) error {
	prof := profiler.New()
	for _, v := range values {
		if _, err := e.findings.Eval(ctx, rego.EvalParsedInput(v), rego.EvalQueryTracer(prof)); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	stats := prof.ReportTopNResults(0, []string{"total_time_ns", "num_eval", "num_redo", "file", "line"})
	for _, s := range stats {
		p.Steps += s.NumEval + s.NumRedo
	}
	out := make([]HotSpot, 0, min(top, len(stats)))
	for _, s := range stats[:min(top, len(stats))] {
		h := HotSpot{Time: time.Duration(s.ExprTimeNs), Evals: s.NumEval, Redos: s.NumRedo}
		if s.Location != nil {
			h.Location = fmt.Sprintf("%s:%d", s.Location.File, s.Location.Row)
			h.Text = string(s.Location.Text)
		}
		out = append(out, h)
	}
	p.Hot = out
	return nil
}
