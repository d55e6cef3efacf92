package policy

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// RunTests runs the _test.rego tests of the loaded policies the way
// `opa test` does and returns every result.
func (e *Engine) RunTests(ctx context.Context) ([]*tester.Result, error) {
	modules := map[string]*ast.Module{}
	// The test runner compiles the modules again, which rewrites them:
	// it gets copies, as engines may share the parsed policies.
	for _, f := range e.files {
		modules[f.Name] = f.Module.Copy()
	}
	txn, err := e.store.NewTransaction(ctx)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer e.store.Abort(ctx, txn)
	ch, err := tester.NewRunner().
		SetStore(e.store).
		SetModules(modules).
		CapturePrintOutput(true).
		RaiseBuiltinErrors(true).
		RunTests(ctx, txn)
	if err != nil {
		return nil, fmt.Errorf("run rule tests: %w", err)
	}
	var out []*tester.Result
	for r := range ch {
		out = append(out, r)
	}
	return out, nil
}
