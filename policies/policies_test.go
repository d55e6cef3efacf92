package policies_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/policies"
)

// TestRego runs every _test.rego test of the built-in rules.
func TestRego(t *testing.T) {
	ctx := context.Background()
	e, err := policy.Load(ctx, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	results, err := e.RunTests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("no Rego tests found")
	}
	for _, r := range results {
		r := r
		t.Run(strings.TrimPrefix(r.Package, "data.")+"."+r.Name, func(t *testing.T) {
			if r.Error != nil {
				t.Fatalf("%s: %v\n%s", r.Location, r.Error, r.Output)
			}
			if r.Fail {
				t.Fatalf("%s: failed\n%s", r.Location, r.Output)
			}
		})
	}
}

// TestEveryRuleHasTests checks that each rule package has a test that
// fires (test_fires_*) and one that must stay quiet (test_quiet_*), and
// that they pass (TestRego runs them).
func TestEveryRuleHasTests(t *testing.T) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	results, err := e.RunTests(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fires, quiet := map[string]int{}, map[string]int{}
	for _, r := range results {
		pkg := strings.TrimSuffix(strings.TrimPrefix(r.Package, "data."), "_test")
		switch {
		case strings.HasPrefix(r.Name, "test_fires"):
			fires[pkg]++
		case strings.HasPrefix(r.Name, "test_quiet"):
			quiet[pkg]++
		}
	}
	for _, r := range e.Rules() {
		if fires[r.Package] == 0 || quiet[r.Package] == 0 {
			t.Errorf("rule %s (%s) has %d test_fires_* and %d test_quiet_* cases; want at least one of each", r.ID, r.Package, fires[r.Package], quiet[r.Package])
		}
	}
}

// TestRuleLayout checks that every built-in rule lives in its own folder,
// rules/<area>/<name>/<name>.rego, whose path matches its package: the id
// and default category are derived from the package, so a file in the
// wrong folder would be a rule whose id points elsewhere.
func TestRuleLayout(t *testing.T) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Rules() {
		parts := strings.Split(strings.TrimPrefix(r.Package, policy.RulesRoot+"."), ".")
		want := "builtin:rules/" + parts[0] + "/" + parts[1] + "/" + parts[1] + ".rego"
		if r.File != want {
			t.Errorf("rule %s is in %s, want %s", r.ID, r.File, want)
		}
	}
	err = fs.WalkDir(policies.FS, "rules", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if depth := strings.Count(p, "/"); depth != 3 {
			t.Errorf("%s: rule files live in rules/<area>/<name>/", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFormatted checks every .rego file is formatted as `opa fmt` would.
func TestFormatted(t *testing.T) {
	err := fs.WalkDir(policies.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		src, err := fs.ReadFile(policies.FS, p)
		if err != nil {
			return err
		}
		got, err := format.SourceWithOpts(p, src, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if string(got) != string(src) {
			t.Errorf("%s is not formatted; run `make fmt-rego`", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
