// Package policy loads traindoc's Rego rules (built-in and user
// directories), compiles them once, and evaluates the prepared query once
// per job. It also reads each rule's METADATA into a catalogue used for
// finding text, the rule list and the site.
package policy

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// RulesRoot is the package prefix every rule lives under; LibRoot the one of
// shared helpers.
const (
	RulesRoot = "traindoc.rules"
	LibRoot   = "traindoc.lib"
)

// sourceFile is one parsed .rego file.
type sourceFile struct {
	// Name is the path shown to users: "builtin:rules/sched/x.rego" or the
	// file's path on disk.
	Name    string
	Source  []byte
	Module  *ast.Module
	Builtin bool
	Test    bool
}

func parseOpts() ast.ParserOptions {
	return ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1}
}

// parseFS parses every .rego file of fsys below root.
func parseFS(fsys fs.FS, root, prefix string, builtin bool) ([]*sourceFile, error) {
	var files []*sourceFile
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		name := prefix + p
		m, err := ast.ParseModuleWithOpts(name, string(src), parseOpts())
		if err != nil {
			return fmt.Errorf("parse policy: %w", err)
		}
		files = append(files, &sourceFile{
			Name: name, Source: src, Module: m, Builtin: builtin,
			Test: strings.HasSuffix(p, "_test.rego"),
		})
		return nil
	})
	return files, err
}

// parseDir parses a user policy directory.
func parseDir(dir string) ([]*sourceFile, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("policy directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("policy directory %s: not a directory", dir)
	}
	files, err := parseFS(os.DirFS(dir), ".", filepath.Clean(dir)+string(filepath.Separator), false)
	if err != nil {
		return nil, err
	}
	return files, nil
}

// packagePath is "traindoc.rules.sched.insufficient_gpu" for a module.
func packagePath(m *ast.Module) string {
	return strings.TrimPrefix(m.Package.Path.String(), "data.")
}

// testTarget is the package a _test package tests.
func testTarget(pkg string) string { return strings.TrimSuffix(pkg, "_test") }

// merge applies user files over built-in ones: a user module whose package
// equals a built-in one (and so has the same rule id) replaces that built-in
// package, with its tests, instead of merging into it as OPA would by
// default.
func merge(builtin, user []*sourceFile) (files []*sourceFile, overridden []string) {
	userPkgs := map[string]string{}
	for _, f := range user {
		if !f.Test {
			userPkgs[packagePath(f.Module)] = f.Name
		}
	}
	dropped := map[string]bool{}
	for _, f := range builtin {
		if f.Test {
			continue
		}
		pkg := packagePath(f.Module)
		if by, ok := userPkgs[pkg]; ok {
			dropped[pkg] = true
			overridden = append(overridden, fmt.Sprintf("%s overridden by %s", pkg, by))
		}
	}
	for _, f := range builtin {
		pkg := packagePath(f.Module)
		if f.Test {
			pkg = testTarget(pkg)
		}
		if dropped[pkg] {
			continue
		}
		files = append(files, f)
	}
	files = append(files, user...)
	sort.Strings(overridden)
	return files, overridden
}

// checkUserPackages rejects user policy files whose package traindoc would
// never evaluate: rules are traindoc.rules.<area>.<name>, shared helpers
// traindoc.lib.<name>, tests end in _test.
func checkUserPackages(user []*sourceFile) error {
	var errs []string
	for _, f := range user {
		pkg := packagePath(f.Module)
		if f.Test {
			pkg = testTarget(pkg)
		}
		switch {
		case strings.HasPrefix(pkg, RulesRoot+"."):
			if _, ok := RuleID(pkg); !ok {
				errs = append(errs, fmt.Sprintf("%s:%d: package %s: rules must be %s.<area>.<name> (lower-case letters, digits and underscores), or they are never evaluated", f.Name, f.Module.Package.Location.Row, pkg, RulesRoot))
			}
		case strings.HasPrefix(pkg, LibRoot+"."), f.Test:
		default:
			errs = append(errs, fmt.Sprintf("%s:%d: package %s is never evaluated: rules must be %s.<area>.<name>, shared helpers %s.<name>", f.Name, f.Module.Package.Location.Row, pkg, RulesRoot, LibRoot))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("invalid user policies:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}
