// Package probe runs the in-pod checks a watch adds to what the collector
// runs with --exec: the checkpoint listing of a directory named by
// --checkpoint-dir or by the job's own arguments (with the folders and
// tracker files that tell a complete checkpoint from one being written),
// nvidia-smi's CSV query where the collector ran none, and a grep of
// NCCL's transport lines in Ray's session logs, which the container's
// output does not hold. Each command runs without a shell, with a
// timeout, and its output is written to the snapshot's exec/ folder, where
// the same parsers and rules read it.
package probe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/internal/execout"
)

// ExecFunc runs a command in a container.
type ExecFunc func(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) error

// Options configure the probe.
type Options struct {
	// CheckpointDir is listed for every job; empty takes each job's own
	// (its arguments or environment), when they name one plainly.
	CheckpointDir string
	// Timeout bounds each command (default 20s).
	Timeout time.Duration
	// MaxOutput bounds what one command writes (default 1 MiB).
	MaxOutput int
}

// Output names of the files the probe writes under exec/<pod>/.
const (
	NvidiaSMI     = "nvidia-smi"
	Checkpoints   = "checkpoints"
	NCCLTransport = "nccl-transport.log" // a log excerpt: scanned like a log
)

// NvidiaSMIQuery is the CSV query the parsers read by column name.
var NvidiaSMIQuery = []string{"nvidia-smi", "--query-gpu=index,utilization.gpu,memory.used,memory.total", "--format=csv"}

// RaySessionLogs is where Ray workers write their output inside a pod.
const RaySessionLogs = "/tmp/ray/session_latest/logs"

// ncclGrep finds NCCL's transport selection in Ray's worker logs; -r with
// --include globs without a shell, -m bounds each file.
var ncclGrep = []string{"grep", "-r", "-h", "-i", "-m", "20", "-E",
	`NET/OFI|NET/Socket|NET/IB|NET/Plugin|Using network`,
	"--include=worker*.out", "--include=worker*.err", "--include=*.log", RaySessionLogs}

// Task is one check planned in one container.
type Task struct {
	Namespace, Pod, Container string
	// Name is the output file's name without .txt.
	Name string
	// Argv is the command; for a checkpoint listing, Dir is listed in
	// stages instead.
	Argv []string
	Dir  string
}

func (t Task) String() string {
	if t.Dir != "" {
		return fmt.Sprintf("list %s in %s/%s", t.Dir, t.Namespace, t.Pod)
	}
	return fmt.Sprintf("%s in %s/%s", strings.Join(t.Argv, " "), t.Namespace, t.Pod)
}

// Plan decides what runs where for the running jobs of a snapshot,
// skipping what the collector already saved.
func Plan(snapDir string, jobs []*evidence.Job, opts Options) []Task {
	var tasks []Task
	for _, job := range jobs {
		if job.Phase != evidence.PhaseRunning {
			continue
		}
		pods := running(job)
		if len(pods) == 0 {
			continue
		}
		ray := job.Kind == "RayJob" || job.Kind == "RayCluster"
		hasListing := false
		for _, p := range job.Pods {
			if exists(snapDir, p.Namespace, p.Name, Checkpoints) {
				hasListing = true
			}
		}
		for _, p := range pods {
			if c := gpuContainer(p); c != "" && !exists(snapDir, p.Namespace, p.Name, NvidiaSMI) {
				tasks = append(tasks, Task{Namespace: p.Namespace, Pod: p.Name, Container: c, Name: NvidiaSMI, Argv: NvidiaSMIQuery})
			}
		}
		if ray {
			for _, p := range grepPods(pods) {
				tasks = append(tasks, Task{Namespace: p.Namespace, Pod: p.Name, Container: mainContainer(p), Name: NCCLTransport, Argv: ncclGrep})
			}
		}
		if hasListing {
			continue
		}
		dir := opts.CheckpointDir
		if dir == "" {
			dir = CheckpointDirOf(job)
		}
		if dir != "" {
			p := lead(pods)
			tasks = append(tasks, Task{Namespace: p.Namespace, Pod: p.Name, Container: mainContainer(p), Name: Checkpoints, Dir: dir})
		}
	}
	return tasks
}

// maxGrepPods bounds the pods of one Ray job whose session logs are
// searched each round: NCCL picks its transport the same way on every
// node of a job, and a 64-node cluster should not cost 64 execs a round.
const maxGrepPods = 4

// grepPods are the head and the first workers.
func grepPods(pods []*evidence.Pod) []*evidence.Pod {
	head := lead(pods)
	out := []*evidence.Pod{head}
	for _, p := range pods {
		if len(out) == maxGrepPods {
			break
		}
		if p != head {
			out = append(out, p)
		}
	}
	return out
}

func running(job *evidence.Job) []*evidence.Pod {
	var out []*evidence.Pod
	for i := range job.Pods {
		if job.Pods[i].Phase == evidence.PhaseRunning && len(job.Pods[i].Containers) > 0 {
			out = append(out, &job.Pods[i])
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// lead is the pod a job's shared checkpoint folder is listed from: the
// master, launcher, chief or head when there is one, else the first.
func lead(pods []*evidence.Pod) *evidence.Pod {
	for _, want := range []string{"master", "launcher", "chief", "head", "node"} {
		for _, p := range pods {
			if strings.EqualFold(p.ReplicaType, want) || strings.HasPrefix(strings.ToLower(p.ReplicaType), want) {
				return p
			}
		}
	}
	return pods[0]
}

func gpuContainer(p *evidence.Pod) string {
	for _, c := range p.Containers {
		for _, rl := range []map[string]string{c.Limits, c.Requests} {
			for k, v := range rl {
				if (k == "nvidia.com/gpu" || strings.HasPrefix(k, "nvidia.com/mig-")) && v != "" && v != "0" {
					return c.Name
				}
			}
		}
	}
	return ""
}

func mainContainer(p *evidence.Pod) string { return p.Containers[0].Name }

// ExecDir returns the folder of a pod's outputs in the snapshot's layout:
// v2 (exec/<namespace>/<pod>) when the snapshot is written that way, else
// v1 (exec/<pod>).
func ExecDir(snapDir, namespace, pod string) string {
	for _, top := range []string{"exec", "logs"} {
		if st, err := os.Stat(filepath.Join(snapDir, top, namespace, pod)); err == nil && st.IsDir() {
			return filepath.Join(snapDir, "exec", namespace, pod)
		}
	}
	return filepath.Join(snapDir, "exec", pod)
}

func exists(snapDir, namespace, pod, name string) bool {
	_, err := os.Stat(filepath.Join(ExecDir(snapDir, namespace, pod), name+".txt"))
	return err == nil
}

// Run carries out the tasks one after another (they are few: one listing
// and a few small commands per job) and returns notes on what failed.
func Run(ctx context.Context, snapDir string, exec ExecFunc, tasks []Task, opts Options) []string {
	if opts.Timeout <= 0 {
		opts.Timeout = 20 * time.Second
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = 1 << 20
	}
	r := &runner{exec: exec, opts: opts}
	var notes []string
	for _, t := range tasks {
		var out []byte
		var err error
		if t.Dir != "" {
			out, err = r.listing(ctx, t)
		} else {
			out, err = r.run(ctx, t, t.Argv)
		}
		if t.Name == NCCLTransport && err != nil && len(out) == 0 {
			// grep finds nothing (exit 1) or Ray has no session logs:
			// nothing to keep.
			continue
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", t, err))
		}
		if len(bytes.TrimSpace(out)) == 0 {
			continue
		}
		if werr := write(ExecDir(snapDir, t.Namespace, t.Pod), t.Name+".txt", out); werr != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", t, werr))
		}
	}
	return notes
}

type runner struct {
	exec ExecFunc
	opts Options
}

func (r *runner) run(ctx context.Context, t Task, argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	buf := &limited{max: r.opts.MaxOutput}
	err := r.exec(ctx, t.Namespace, t.Pod, t.Container, argv, buf, buf)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("timed out after %s", r.opts.Timeout)
	}
	return buf.Bytes(), err
}

// maxListed bounds the checkpoint folders whose contents are listed: the
// newest few are those a restart would use.
const maxListed = 3

// listing lists a checkpoint folder in three stages: the folder (named, as
// ls names folders when it lists several), the newest few checkpoint
// folders in it, whose files show whether they were finished, and the
// tracker files whose content names the newest complete one.
func (r *runner) listing(ctx context.Context, t Task) ([]byte, error) {
	dir := strings.TrimSuffix(t.Dir, "/")
	var out bytes.Buffer
	top, err := r.run(ctx, t, []string{"ls", "-la", "--time-style=full-iso", "--", dir})
	if err != nil && bytes.Contains(top, []byte("unrecognized option")) {
		// busybox ls: no --time-style.
		top, err = r.run(ctx, t, []string{"ls", "-la", "--", dir})
	}
	fmt.Fprintf(&out, "%s:\n%s", dir, top)
	if err != nil {
		return out.Bytes(), err
	}
	l, perr := execout.ParseCheckpointListing(bytes.NewReader(out.Bytes()), execout.ListingOptions{})
	if perr != nil {
		return out.Bytes(), nil
	}
	var folders []execout.CheckpointEntry
	for _, e := range l.Entries {
		if e.Dir && e.Path != "" {
			folders = append(folders, e)
		}
	}
	if len(folders) > maxListed {
		folders = folders[len(folders)-maxListed:]
	}
	for i := len(folders) - 1; i >= 0; i-- {
		sub, err := r.run(ctx, t, []string{"ls", "-la", "--time-style=full-iso", "--", folders[i].Path})
		if err == nil {
			fmt.Fprintf(&out, "\n%s:\n%s", folders[i].Path, sub)
		}
	}
	for _, name := range trackerFiles(top) {
		p := path.Join(dir, name)
		head, err := r.run(ctx, t, []string{"head", "-n", "3", "--", p})
		if err == nil {
			fmt.Fprintf(&out, "\n==> %s <==\n%s", p, head)
		}
	}
	return out.Bytes(), nil
}

// trackerFiles are the regular files of a listing that name the newest
// checkpoint (DeepSpeed's latest, Megatron's and verl's
// latest_checkpointed_iteration.txt); symlinks show their target already.
func trackerFiles(listing []byte) []string {
	var out []string
	for _, l := range strings.Split(string(listing), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || !strings.HasPrefix(f[0], "-") {
			continue
		}
		name := f[len(f)-1]
		if name == "latest" || name == "latest_checkpointed_iteration.txt" {
			out = append(out, name)
		}
	}
	return out
}

func write(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), data, 0o644)
}

// limited keeps the first max bytes of a command's output.
type limited struct {
	bytes.Buffer
	max int
}

func (b *limited) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
