package policy

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// The rule engine reads evidence and returns findings; the report model
// builds on it. An import of the report (directly or through another
// package of the module) would turn that round again.
func TestPolicyDoesNotDependOnReport(t *testing.T) {
	const module = "github.com/traindoc/traindoc/"
	forbidden := map[string]bool{
		module + "engine/report":   true,
		module + "engine/diagnose": true,
		module + "render":          true,
		module + "site":            true,
	}
	seen := map[string]bool{}
	var walk func(pkg string, path []string)
	walk = func(pkg string, path []string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(pkg, module)))
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("read %s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			chain := append(append([]string{}, path...), imp)
			if forbidden[imp] {
				t.Errorf("engine/policy depends on %s: %s", imp, strings.Join(chain, " → "))
				continue
			}
			walk(imp, chain)
		}
	}
	walk(module+"engine/policy", []string{module + "engine/policy"})
}
