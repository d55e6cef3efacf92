package cli

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/spf13/cobra"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/internal/ere"
)

func newRulesCmd(s IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Args:  cobra.NoArgs,
		Short: "List, test and format the Rego rules",
	}
	cmd.AddCommand(newRulesListCmd(s), newRulesTestCmd(s), newRulesFmtCmd(s), newRulesSignaturesCmd(s))
	return cmd
}

func loadEngine(cmd *cobra.Command, dirs, data []string) (*policy.Engine, error) {
	e, err := policy.Load(cmd.Context(), policy.Options{Dirs: dirs, DataFiles: data})
	if err != nil {
		return nil, usageError(err)
	}
	return e, nil
}

func newRulesListCmd(s IOStreams) *cobra.Command {
	var dirs, data, only, skip []string
	var lang string
	cmd := &cobra.Command{
		Use:   "list [--policies DIR] [--data FILE] [--rules ID,...] [--skip-rules ID,...]",
		Args:  cobra.NoArgs,
		Short: "List every rule with its effective state: id, category, layer, severity, title",
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := policy.Load(cmd.Context(), policy.Options{Dirs: dirs, DataFiles: data, Rules: only, SkipRules: skip})
			if err != nil {
				return usageError(err)
			}
			tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATE\tCATEGORY\tLAYER\tSEVERITY\tOWNER\tTITLE\tSOURCE")
			for _, r := range e.Rules() {
				src := "built-in"
				if !r.Builtin {
					src = r.File
				}
				state, sev := "enabled", r.Severity
				if !r.Enabled {
					state = "disabled"
				}
				if r.SeverityOverride != "" && r.SeverityOverride != r.Severity {
					sev = r.SeverityOverride + " (set; rule says " + r.Severity + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, state, r.Category, r.Layer, sev, r.Owner, r.Title.In(lang), src)
			}
			for _, o := range e.Overridden {
				fmt.Fprintf(s.ErrOut, "note: %s\n", o)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringArrayVar(&dirs, "policies", nil, "directory of extra or overriding Rego rules (repeatable)")
	cmd.Flags().StringArrayVar(&data, "data", nil, "YAML or JSON data file with settings (repeatable)")
	cmd.Flags().StringSliceVar(&only, "rules", nil, "evaluate only these rule ids (comma-separated)")
	cmd.Flags().StringSliceVar(&skip, "skip-rules", nil, "do not evaluate these rule ids (comma-separated)")
	cmd.Flags().StringVar(&lang, "lang", "en", "language of the titles: en or zh")
	return cmd
}

func newRulesTestCmd(s IOStreams) *cobra.Command {
	var dirs, data []string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "test [--policies DIR]",
		Args:  cobra.NoArgs,
		Short: "Run the built-in and user _test.rego tests, like `opa test`",
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := loadEngine(cmd, dirs, data)
			if err != nil {
				return err
			}
			results, err := e.RunTests(cmd.Context())
			if err != nil {
				return usageError(err)
			}
			out := s.Out
			pass, fail := 0, 0
			for _, r := range results {
				name := strings.TrimPrefix(r.Package, "data.") + "." + r.Name
				switch {
				case r.Error != nil:
					fail++
					fmt.Fprintf(out, "ERROR %s (%s): %v\n", name, r.Location, r.Error)
				case r.Fail:
					fail++
					fmt.Fprintf(out, "FAIL  %s (%s)\n", name, r.Location)
					if len(r.Output) > 0 {
						fmt.Fprintf(out, "%s\n", r.Output)
					}
				case r.Skip:
				default:
					pass++
					if verbose {
						fmt.Fprintf(out, "PASS  %s\n", name)
					}
				}
			}
			fmt.Fprintf(out, "%d passed, %d failed\n", pass, fail)
			if fail > 0 {
				return exitError{code: exitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&dirs, "policies", nil, "directory of extra or overriding Rego rules and their tests (repeatable)")
	cmd.Flags().StringArrayVar(&data, "data", nil, "data file merged into the rules' data (repeatable)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print passing tests too")
	return cmd
}

func newRulesFmtCmd(s IOStreams) *cobra.Command {
	var write bool
	cmd := &cobra.Command{
		Use:   "fmt [-w] PATH...",
		Short: "Format .rego files the way `opa fmt` does (lists files that differ)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			differ := 0
			for _, root := range args {
				err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
						return err
					}
					src, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					out, err := format.SourceWithOpts(p, src, format.Opts{RegoVersion: ast.RegoV1})
					if err != nil {
						return fmt.Errorf("format %s: %w", p, err)
					}
					if string(out) == string(src) {
						return nil
					}
					differ++
					fmt.Fprintln(s.Out, p)
					if write {
						return os.WriteFile(p, out, 0o644)
					}
					return nil
				})
				if err != nil {
					return usageError(err)
				}
			}
			if differ > 0 && !write {
				return exitError{code: exitFindings}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&write, "write", "w", false, "rewrite the files in place")
	return cmd
}

func newRulesSignaturesCmd(s IOStreams) *cobra.Command {
	var dirs, data []string
	var output string
	var progress bool
	cmd := &cobra.Command{
		Use:   "signatures [-o text|grep|rg] [--progress]",
		Short: "Print the log signatures the rules declare, to scan a log with grep or ripgrep too",
		Long: `Print the log signatures the rules declare, sorted by id.

-o text (the default) prints "id<TAB>pattern" in Go's regular expression
syntax, as traindoc matches them. -o grep prints the patterns alone,
rewritten in the syntax GNU grep -E and ripgrep both read, so that the
same set can be counted with:

  traindoc rules signatures -o grep > sigs.txt
  LC_ALL=C grep -E -c -f sigs.txt app.log
  rg -c -f sigs.txt app.log

-o rg writes word boundaries and the \w and \s classes as ASCII, as Go
means them: ripgrep's own are Unicode-aware and much slower.

--progress adds the progress patterns (steps, loss, throughput).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dialect, ok := map[string]ere.Dialect{"text": -1, "grep": ere.Grep, "rg": ere.Ripgrep}[output]
			if !ok {
				return usageError(fmt.Errorf("unknown output %q (want text, grep or rg)", output))
			}
			e, err := loadEngine(cmd, dirs, data)
			if err != nil {
				return err
			}
			sigs := declaredPatterns(e.Signatures)
			if progress {
				sigs = append(sigs, declaredPatterns(e.ProgressPatterns)...)
			}
			sort.SliceStable(sigs, func(a, b int) bool { return sigs[a][0] < sigs[b][0] })
			w := bufio.NewWriter(s.Out)
			for _, sig := range sigs {
				if output == "text" {
					fmt.Fprintf(w, "%s\t%s\n", sig[0], sig[1])
					continue
				}
				p, err := ere.TranslateFor(sig[1], dialect)
				if err != nil {
					return fmt.Errorf("signature %s: %w", sig[0], err)
				}
				fmt.Fprintln(w, p)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringArrayVar(&dirs, "policies", nil, "directory of extra or overriding Rego rules (repeatable)")
	cmd.Flags().StringArrayVar(&data, "data", nil, "data file merged into the rules' data (repeatable)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text (id and Go pattern), grep (patterns for grep -E -f and rg -f) or rg (for rg -f, ASCII classes)")
	cmd.Flags().BoolVar(&progress, "progress", false, "include the progress patterns")
	return cmd
}

// declaredPatterns returns [id, pattern] pairs of declared signatures or
// progress patterns.
func declaredPatterns(decl []map[string]any) [][2]string {
	out := make([][2]string, 0, len(decl))
	for _, m := range decl {
		id, _ := m["id"].(string)
		p, _ := m["pattern"].(string)
		if p != "" {
			out = append(out, [2]string{id, p})
		}
	}
	return out
}
