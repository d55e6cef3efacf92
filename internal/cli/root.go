// Package cli is traindoc's command line: flags, wiring and exit codes.
// What a command does lives in the library packages it calls; the command
// tree is built explicitly in NewCommand.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version is what --version and reports say; Main sets it from the
// binary's build.
var version = "dev"

// Exit codes.
const (
	exitOK       = 0
	exitFindings = 1 // --fail-on matched
	exitUsage    = 2 // bad usage or unreadable input
	exitPartial  = 3 // diagnosed, but some evidence could not be read
)

// IOStreams are where a command reads and writes: the process's standard
// streams, or buffers in tests. Commands never use os.Stdout or os.Stderr.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// StdStreams are the process's standard streams.
func StdStreams() IOStreams { return IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e exitError) Unwrap() error { return e.err }

// usageError marks bad flags or unreadable input (exit 2).
func usageError(err error) error { return exitError{code: exitUsage, err: err} }

// NewCommand builds the command tree.
func NewCommand(s IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "traindoc",
		Short: "Diagnose distributed training jobs on Kubernetes",
		Long: `traindoc reads training jobs (PyTorchJob and its Kubeflow siblings, TrainJob,
PyTorchTrainingJob, RayJob, RayCluster) with their pods, events and logs, from a
snapshot directory or a live cluster, and tells why each one failed, stalled or
never started, and what to do about it.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.AddCommand(
		newDiagnoseCmd(s),
		newReportCmd(s),
		newSiteCmd(s),
		newSnapshotCmd(s),
		newWatchCmd(s),
		newHealthCmd(s),
		newRulesCmd(s),
		newPromptCmd(s),
	)
	// A mistyped flag gets a suggestion from the flags the command has.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(withFlagSuggestion(c, err))
	})
	return root
}

// withFlagSuggestion adds "did you mean --x?" to an unknown-flag error,
// naming only flags of the command that failed.
func withFlagSuggestion(c *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		if !strings.HasPrefix(msg, "unknown shorthand flag: ") {
			return err
		}
		return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	best, dist := "", 0
	for _, n := range names {
		d := levenshtein.ComputeDistance(name, n)
		if best == "" || d < dist {
			best, dist = n, d
		}
	}
	if best != "" && dist <= max(2, len(name)/3) {
		return fmt.Errorf("%w; did you mean --%s?", err, best)
	}
	return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
}

// Main runs the command line with args and streams and returns the exit
// code; buildVersion is the binary's version.
func Main(args []string, s IOStreams, buildVersion string) int {
	if buildVersion != "" {
		version = buildVersion
	}
	return run(args, s)
}

// runWith runs the CLI with the given output streams, for tests.
func runWith(args []string, stdout, stderr io.Writer) int {
	return run(args, IOStreams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr})
}

func run(args []string, s IOStreams) int {
	root := NewCommand(s)
	root.SetArgs(args)
	ctx, release := withCleanups(context.Background())
	err := root.ExecuteContext(ctx)
	release()
	if err == nil {
		return exitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(s.ErrOut, "traindoc:", ee.err)
		}
		return ee.code
	}
	// Errors from argument checks are usage errors.
	fmt.Fprintln(s.ErrOut, "traindoc:", err)
	return exitUsage
}
