package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes.
const (
	exitOK       = 0
	exitFindings = 1 // --fail-on matched
	exitUsage    = 2 // bad usage or unreadable input
	exitPartial  = 3 // diagnosed, but some evidence could not be read
)

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

var commands []func() *cobra.Command

// addCommand registers a subcommand; each command file calls it from init.
func addCommand(f func() *cobra.Command) { commands = append(commands, f) }

func newRootCmd() *cobra.Command {
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
	}
	for _, f := range commands {
		root.AddCommand(f())
	}
	return root
}

func run(args []string) int { return runWith(args, os.Stdout, os.Stderr) }

// runWith runs the CLI with the given output streams and returns the exit
// code.
func runWith(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ctx, release := withCleanups(context.Background())
	err := root.ExecuteContext(ctx)
	release()
	if err == nil {
		return exitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "traindoc:", ee.err)
		}
		return ee.code
	}
	// Errors from flag parsing and argument checks are usage errors.
	fmt.Fprintln(stderr, "traindoc:", err)
	return exitUsage
}
