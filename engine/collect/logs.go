package collect

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// task is one unit of work for the bounded pool.
type task func(ctx context.Context)

// fetchLogsAndExec runs the log and exec requests concurrently, at most
// Options.Concurrency at a time. The rest.Config rate limiter is shared by all
// of them, so the pool bounds open streams while QPS bounds request starts.
func (c *collector) fetchLogsAndExec(ctx context.Context) {
	var tasks []task
	for _, p := range c.pods {
		tasks = append(tasks, c.logTasks(p)...)
	}
	if c.opts.Exec {
		tasks = append(tasks, c.execTasks()...)
	}
	c.progress.start("logs", len(tasks))

	sem := make(chan struct{}, c.opts.Concurrency)
	var wg sync.WaitGroup
	for _, t := range tasks {
		if c.gone(ctx) {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if !c.gone(ctx) {
				t(ctx)
			}
			c.progress.step()
		})
	}
	wg.Wait()
}

func allContainers(p *corev1.Pod) []string {
	var names []string
	for _, ct := range p.Spec.InitContainers {
		names = append(names, ct.Name)
	}
	for _, ct := range p.Spec.Containers {
		names = append(names, ct.Name)
	}
	return names
}

// restarted reports whether a container has a previous instance whose log
// the kubelet may still hold.
func restarted(p *corev1.Pod, container string) bool {
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, s := range list {
			if s.Name == container {
				return s.RestartCount > 0 || s.LastTerminationState.Terminated != nil
			}
		}
	}
	return false
}

func (c *collector) logTasks(p *corev1.Pod) []task {
	// An unscheduled pod has no kubelet to ask.
	if p.Spec.NodeName == "" {
		return nil
	}
	var tasks []task
	for _, ct := range allContainers(p) {
		tasks = append(tasks, func(ctx context.Context) { c.fetchLog(ctx, p, ct, false) })
		if c.opts.Previous && restarted(p, ct) {
			tasks = append(tasks, func(ctx context.Context) { c.fetchLog(ctx, p, ct, true) })
		}
	}
	return tasks
}

// fetchLog streams one container log to
// logs/<namespace>/<pod>/<container>[.previous].log (layout v2: pods of the
// same name in two namespaces are common with -A).
// Logs can be gigabytes, so they are copied, never held in memory; LogBytes
// and LogTail are applied by the kubelet.
func (c *collector) fetchLog(ctx context.Context, p *corev1.Pod, container string, previous bool) {
	what := fmt.Sprintf("logs of pod %s/%s container %s", p.Namespace, p.Name, container)
	file := container + ".log"
	missing := snapshot.Missing{What: "logs", Namespace: p.Namespace, Pod: p.Name, Container: container}
	if previous {
		what = fmt.Sprintf("previous logs of pod %s/%s container %s", p.Namespace, p.Name, container)
		file = container + ".previous.log"
		missing.What = "previous-logs"
	}
	opts := &corev1.PodLogOptions{Container: container, Previous: previous, Timestamps: c.opts.Timestamps}
	if c.opts.LogBytes > 0 {
		opts.LimitBytes = &c.opts.LogBytes
	}
	if c.opts.LogTail > 0 {
		opts.TailLines = &c.opts.LogTail
	}
	// A log stream may legitimately take longer than one API request.
	sctx, cancel := context.WithTimeout(ctx, 4*c.opts.RequestTimeout)
	defer cancel()
	rc, err := c.c.core.CoreV1().Pods(p.Namespace).GetLogs(p.Name, opts).Stream(sctx)
	if err != nil {
		// A container that never started, or whose previous instance is gone,
		// has no log: expected, and only worth a debug note.
		if apierrors.IsBadRequest(err) || apierrors.IsNotFound(err) {
			c.debugf("%s not available: %s", what, reason(err))
			return
		}
		c.failedMiss(ctx, err, missing, "%s not readable", what)
		return
	}
	defer rc.Close()

	path, err := safeJoin(c.out, "logs", p.Namespace, p.Name, file)
	if err != nil {
		c.note("%s skipped: %v", what, err)
		return
	}
	n, err := copyToFile(path, rc)
	if err != nil {
		if n > 0 {
			c.note("%s incomplete after %d bytes: %s", what, n, reason(err))
			missing.Reason = fmt.Sprintf("incomplete after %d bytes: %s", n, reason(err))
			c.miss(missing)
		} else {
			c.failedMiss(ctx, err, missing, "%s not readable", what)
		}
	}
	if n == 0 && err != nil {
		_ = os.Remove(path)
		return
	}
	// An empty log that was read stays as an empty file: the container
	// printed nothing, which is evidence, while a log absent from the
	// snapshot is reported as missing.
	c.mu.Lock()
	c.logs++
	c.mu.Unlock()
}

// copyToFile streams r into path, masking secrets line by line (engine/redact),
// and returns the bytes written.
func copyToFile(path string, r io.Reader) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", path, err)
	}
	n, cerr := redact.Copy(f, r)
	if err := f.Close(); err != nil && cerr == nil {
		cerr = fmt.Errorf("close %s: %w", path, err)
	}
	return n, cerr
}

// progress prints "logs 12/40" on one line, rewritten in place.
type progress struct {
	mu           sync.Mutex
	w            io.Writer
	label        string
	count, total int
	last         time.Time
}

func (p *progress) start(label string, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.label, p.total, p.count = label, total, 0
	p.mu.Unlock()
	p.print(true)
}

func (p *progress) step() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.count++
	p.mu.Unlock()
	p.print(false)
}

func (p *progress) print(force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Redraw at most ten times a second; terminals are slow.
	if !force && p.count < p.total && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r%s %d/%d", p.label, p.count, p.total)
}

func (p *progress) done() {
	if p == nil || p.total == 0 {
		return
	}
	p.print(true)
	fmt.Fprintln(p.w)
}
