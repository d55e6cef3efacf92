package restart

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/watch"
)

// Command restarts a job by running a command built from a template
// (--restart-command). The words are rendered one by one and run without
// a shell.
type Command struct {
	Words   *Words
	Timeout time.Duration
	// Run runs argv and returns its combined output; nil runs it with
	// os/exec.
	Run func(ctx context.Context, argv []string) ([]byte, error)
}

// AtMostOnce reports that a command is not run again after an
// interruption: what it did cannot be known.
func (c *Command) AtMostOnce() bool { return true }

// Argv renders the command of a request.
func (c *Command) Argv(req watch.RestartRequest) ([]string, error) {
	argv, err := c.Words.Render(Data(req))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, watch.ErrNotRestartable)
	}
	return argv, nil
}

// Restart runs the command.
func (c *Command) Restart(ctx context.Context, req watch.RestartRequest) error {
	argv, err := c.Argv(req)
	if err != nil {
		return err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	run := c.Run
	if run == nil {
		run = execRun
	}
	out, err := run(ctx, argv)
	if err != nil {
		return fmt.Errorf("%s: %w: %s", argv[0], err, tail(out, 512))
	}
	return nil
}

func execRun(ctx context.Context, argv []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.Bytes(), err
}

func tail(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}
