package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

// execFunc runs a command in a container and writes its output to stdout and stderr.
type execFunc func(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) error

// newRemoteExec returns an execFunc backed by pods/exec. It tries the
// WebSocket protocol first and falls back to SPDY for older API servers,
// as kubectl does.
func newRemoteExec(cfg *rest.Config, cs kubernetes.Interface) execFunc {
	return func(ctx context.Context, ns, pod, container string, command []string, stdout, stderr io.Writer) error {
		req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
			VersionedParams(&corev1.PodExecOptions{
				Container: container,
				Command:   command,
				Stdout:    true,
				Stderr:    true,
			}, scheme.ParameterCodec)
		ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", req.URL().String())
		if err != nil {
			return fmt.Errorf("websocket executor: %w", err)
		}
		spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
		if err != nil {
			return fmt.Errorf("spdy executor: %w", err)
		}
		ex, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
		if err != nil {
			return fmt.Errorf("exec executor: %w", err)
		}
		return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: stdout, Stderr: stderr})
	}
}

// CheckpointDirAnnotation on a pod or its job names the directory whose
// listing is saved as exec/<namespace>/<pod>/checkpoints.txt when
// Options.Exec is set.
const CheckpointDirAnnotation = "traindoc.dev/checkpoint-dir"

// maxExecOutput caps what one in-pod command may write to the snapshot.
const maxExecOutput = 1 << 20

type execCmd struct {
	pod       *corev1.Pod
	container string
	name      string // file name without .txt
	command   []string
}

// plannedExecs decides which read-only commands run where: nvidia-smi once
// per pod in the first container that requests GPUs, ray status and ray job
// list in Ray head pods, and a checkpoint listing where a directory is named.
func (c *collector) plannedExecs() []execCmd {
	jobAnn := map[string]string{} // ns/job name -> checkpoint dir
	for _, objs := range c.picked {
		for _, o := range objs {
			if d := o.GetAnnotations()[CheckpointDirAnnotation]; d != "" {
				jobAnn[o.GetNamespace()+"/"+o.GetName()] = d
			}
		}
	}
	usedJobDir := map[string]bool{}
	var cmds []execCmd
	for _, p := range c.pods {
		if p.Status.Phase != corev1.PodRunning || len(p.Spec.Containers) == 0 {
			continue
		}
		main := p.Spec.Containers[0].Name
		for _, ct := range p.Spec.Containers {
			if wantsGPU(ct) {
				cmds = append(cmds, execCmd{p, ct.Name, "nvidia-smi", []string{"nvidia-smi"}})
				break
			}
		}
		if p.Labels["ray.io/node-type"] == "head" {
			cmds = append(cmds,
				execCmd{p, main, "ray-status", []string{"ray", "status"}},
				execCmd{p, main, "ray-job-list", []string{"ray", "job", "list"}})
		}
		dir := p.Annotations[CheckpointDirAnnotation]
		if dir == "" {
			// The job's annotation applies to one pod only (the first,
			// sorted): checkpoints live on shared storage.
			for _, key := range c.ownerKeys(p) {
				if d := jobAnn[key]; d != "" && !usedJobDir[key] {
					dir, usedJobDir[key] = d, true
					break
				}
			}
		}
		if dir != "" {
			cmds = append(cmds, execCmd{p, main, "checkpoints", []string{"ls", "-l", "--", dir}})
		}
	}
	return cmds
}

// ownerKeys returns "ns/name" of the collected objects a pod may belong to.
func (c *collector) ownerKeys(p *corev1.Pod) []string {
	var keys []string
	for _, r := range p.OwnerReferences {
		keys = append(keys, p.Namespace+"/"+r.Name)
	}
	for _, l := range kinds.PodLabelKeys() {
		if v := p.Labels[l]; v != "" {
			keys = append(keys, p.Namespace+"/"+v)
		}
	}
	sort.Strings(keys)
	return keys
}

func wantsGPU(ct corev1.Container) bool {
	for _, rl := range []corev1.ResourceList{ct.Resources.Limits, ct.Resources.Requests} {
		for name, q := range rl {
			if (name == "nvidia.com/gpu" || bytes.HasPrefix([]byte(name), []byte("nvidia.com/mig-"))) && !q.IsZero() {
				return true
			}
		}
	}
	return false
}

func (c *collector) execTasks() []task {
	var tasks []task
	for _, cmd := range c.plannedExecs() {
		tasks = append(tasks, func(ctx context.Context) { c.runExec(ctx, cmd) })
	}
	return tasks
}

// limitedBuffer keeps the first max bytes and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.truncated = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

func (c *collector) runExec(ctx context.Context, cmd execCmd) {
	what := fmt.Sprintf("exec %s in pod %s/%s container %s", cmd.name, cmd.pod.Namespace, cmd.pod.Name, cmd.container)
	ectx, cancel := context.WithTimeout(ctx, c.opts.ExecTimeout)
	defer cancel()
	out := &limitedBuffer{max: maxExecOutput}
	err := c.c.exec(ectx, cmd.pod.Namespace, cmd.pod.Name, cmd.container, cmd.command, out, out)
	missing := snapshot.Missing{What: "exec " + cmd.name, Namespace: cmd.pod.Namespace, Pod: cmd.pod.Name, Container: cmd.container}
	if err != nil {
		if ectx.Err() != nil && ctx.Err() == nil {
			c.note("%s: timed out after %s", what, c.opts.ExecTimeout)
			missing.Reason = fmt.Sprintf("timed out after %s", c.opts.ExecTimeout)
			c.miss(missing)
		} else {
			c.failedMiss(ctx, err, missing, "%s failed", what)
		}
	}
	if out.Len() == 0 {
		return
	}
	if out.truncated {
		c.note("%s: output truncated at %d bytes", what, maxExecOutput)
	}
	path, perr := safeJoin(c.out, "exec", cmd.pod.Namespace, cmd.pod.Name, cmd.name+".txt")
	if perr != nil {
		c.note("%s skipped: %v", what, perr)
		return
	}
	// Outputs are untrusted text like logs: a listing or a status may name a
	// token.
	if werr := writeFile(path, redact.Bytes(out.Bytes())); werr != nil {
		c.note("%s not written: %v", what, werr)
		return
	}
	c.mu.Lock()
	c.execs++
	c.mu.Unlock()
}
