package probe

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/adapt"
	"github.com/traindoc/traindoc/internal/execout"
)

func TestCheckpointDirOf(t *testing.T) {
	job := func(entrypoint string, cs ...evidence.ContainerSpec) *evidence.Job {
		return &evidence.Job{Spec: evidence.Spec{Entrypoint: entrypoint}, Replicas: []evidence.ReplicaGroup{{Template: evidence.PodTemplate{Containers: cs}}}}
	}
	tests := []struct {
		name string
		job  *evidence.Job
		want string
	}{
		{"hf output_dir", job("", evidence.ContainerSpec{Command: []string{"accelerate", "launch", "train.py"}, Args: []string{"--output_dir", "/data/out/mistral-7b-sft/", "--save_steps", "500"}}), "/data/out/mistral-7b-sft"},
		{"megatron --save in bash -c", job("", evidence.ContainerSpec{Command: []string{"/bin/bash", "-c"}, Args: []string{"torchrun pretrain_gpt.py --save /lustre/megatron/llama3-8b/checkpoints --load /lustre/megatron/llama3-8b/checkpoints --save-interval 5000"}}), "/lustre/megatron/llama3-8b/checkpoints"},
		{"verl hydra in a RayJob entrypoint", job("python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 trainer.default_local_dir=/checkpoints/GRPO/verl-grpo-training-500"), "/checkpoints/GRPO/verl-grpo-training-500"},
		{"flag=value", job("", evidence.ContainerSpec{Args: []string{"--checkpoint_dir=/ckpt/run-7"}}), "/ckpt/run-7"},
		{"environment", job("", evidence.ContainerSpec{Env: map[string]string{"CHECKPOINT_DIR": "/fsx/ckpt/gpt-neox-20b"}}), "/fsx/ckpt/gpt-neox-20b"},
		{"a variable is not plain", job("", evidence.ContainerSpec{Args: []string{"--output_dir", "$OUT/run"}}), ""},
		{"a relative path is not plain", job("", evidence.ContainerSpec{Args: []string{"--output_dir", "out"}}), ""},
		{"two folders disagree", job("", evidence.ContainerSpec{Args: []string{"--save", "/a", "--output_dir", "/b"}}), ""},
		{"nothing", job("python train.py --epochs 3"), ""},
		{"--save_steps is not --save", job("", evidence.ContainerSpec{Args: []string{"--save_steps", "/500"}}), ""},
	}
	for _, tt := range tests {
		if got := CheckpointDirOf(tt.job); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func jobsOf(t *testing.T, dir string) []*evidence.Job {
	t.Helper()
	snap, err := snapshot.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return adapt.Build(snap)
}

func replayRound(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "replay"}, parts...)...)
}

func TestPlan(t *testing.T) {
	// The collector saved nvidia-smi of the master and a listing: only
	// the worker's GPUs are left to query.
	dir := replayRound("nccl-restart", "r2")
	tasks := Plan(dir, jobsOf(t, dir), Options{CheckpointDir: "/results/conformer-xl/checkpoints"})
	if len(tasks) != 1 || tasks[0].Pod != "conformer-xl-worker-0" || tasks[0].Name != NvidiaSMI || tasks[0].Container != "pytorch" {
		t.Errorf("tasks = %v", tasks)
	}
	// Without a listing, one is planned in the master.
	dir = replayRound("stall", "r1")
	tasks = Plan(dir, jobsOf(t, dir), Options{CheckpointDir: "/results/conformer-xl/checkpoints/"})
	var listing *Task
	for i := range tasks {
		if tasks[i].Name == Checkpoints {
			listing = &tasks[i]
		}
	}
	if len(tasks) != 3 || listing == nil || listing.Pod != "conformer-xl-master-0" || listing.Dir != "/results/conformer-xl/checkpoints/" {
		t.Errorf("tasks = %v", tasks)
	}
	// A Ray job's NCCL lines are in its session logs: grep them in every
	// running Ray pod.
	dir = replayRound("gpu-idle", "r1")
	tasks = Plan(dir, jobsOf(t, dir), Options{})
	grep := 0
	for _, tk := range tasks {
		if tk.Name == NCCLTransport {
			grep++
		}
		if tk.Name == Checkpoints || tk.Name == NvidiaSMI {
			t.Errorf("unexpected task %v", tk)
		}
	}
	if grep != 3 {
		t.Errorf("%d greps, want one per Ray pod (3): %v", grep, tasks)
	}
	// A failed job is not probed.
	dir = replayRound("nccl-restart", "r3")
	if tasks := Plan(dir, jobsOf(t, dir), Options{CheckpointDir: "/x"}); len(tasks) != 0 {
		t.Errorf("failed job probed: %v", tasks)
	}
}

// fakePod answers commands as a pod holding a DeepSpeed save folder would.
type fakePod struct {
	out   map[string]string
	errs  map[string]error
	calls []string
}

func (f *fakePod) exec(_ context.Context, _, _, _ string, cmd []string, stdout, _ io.Writer) error {
	k := strings.Join(cmd, " ")
	f.calls = append(f.calls, k)
	if s, ok := f.out[k]; ok {
		io.WriteString(stdout, s)
	}
	if err, ok := f.errs[k]; ok {
		return err
	}
	if _, ok := f.out[k]; !ok {
		io.WriteString(stdout, "ls: cannot access '"+cmd[len(cmd)-1]+"': No such file or directory\n")
		return errors.New("command terminated with exit code 2")
	}
	return nil
}

const dsDir = "/fsx/ckpt/gpt-neox-20b"

func deepspeedPod() *fakePod {
	return &fakePod{out: map[string]string{
		"ls -la --time-style=full-iso -- " + dsDir: `total 44
drwxr-xr-x  5 ubuntu ubuntu  4096 2026-03-14 11:02:13.418227611 +0000 .
drwxr-xr-x 12 ubuntu ubuntu  4096 2026-03-12 07:55:40.002113478 +0000 ..
drwxr-xr-x  2 ubuntu ubuntu 12288 2026-03-14 09:31:55.771203114 +0000 global_step1000
drwxr-xr-x  2 ubuntu ubuntu 12288 2026-03-14 10:46:20.118843902 +0000 global_step2000
drwxr-xr-x  2 ubuntu ubuntu 12288 2026-03-14 11:02:13.418227611 +0000 global_step3000
-rw-r--r--  1 ubuntu ubuntu    15 2026-03-14 10:46:21.552904117 +0000 latest
-rwxr-xr-x  1 ubuntu ubuntu 24733 2026-03-14 09:31:56.004512776 +0000 zero_to_fp32.py
`,
		"ls -la --time-style=full-iso -- " + dsDir + "/global_step3000": "total 8\n-rw-r--r-- 1 ubuntu ubuntu 402653184 2026-03-14 11:02:13.418227611 +0000 mp_rank_00_model_states.pt\n",
		"ls -la --time-style=full-iso -- " + dsDir + "/global_step2000": "total 8\n-rw-r--r-- 1 ubuntu ubuntu 40265318400 2026-03-14 10:46:20.118843902 +0000 mp_rank_00_model_states.pt\n",
		"ls -la --time-style=full-iso -- " + dsDir + "/global_step1000": "total 8\n-rw-r--r-- 1 ubuntu ubuntu 40265318400 2026-03-14 09:31:55.771203114 +0000 mp_rank_00_model_states.pt\n",
		"head -n 3 -- " + dsDir + "/latest":                             "global_step2000",
	}}
}

func TestRunListing(t *testing.T) {
	dir := t.TempDir()
	pod := deepspeedPod()
	tasks := []Task{{Namespace: "llm", Pod: "neox-master-0", Container: "main", Name: Checkpoints, Dir: dsDir + "/"}}
	if notes := Run(context.Background(), dir, pod.exec, tasks, Options{}); len(notes) != 0 {
		t.Fatalf("notes = %v", notes)
	}
	f, err := os.Open(filepath.Join(dir, "exec", "neox-master-0", "checkpoints.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := execout.ParseCheckpointListing(f, execout.ListingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Latest == nil || l.Latest.Path != dsDir+"/global_step2000" {
		t.Fatalf("latest = %+v", l.Latest)
	}
	for _, e := range l.Entries {
		if e.Name == "global_step3000" && (e.Complete || !strings.Contains(e.Why, "newer than latest (step 2000)")) {
			t.Errorf("global_step3000 = %+v", e)
		}
	}
	// The three newest folders were listed, newest first, and the tracker
	// read; nothing else ran.
	if len(pod.calls) != 5 || !strings.HasSuffix(pod.calls[1], "global_step3000") || !strings.HasPrefix(pod.calls[4], "head") {
		t.Errorf("calls = %q", pod.calls)
	}
}

func TestRunBusyboxAndFailures(t *testing.T) {
	dir := t.TempDir()
	pod := &fakePod{
		out: map[string]string{
			"ls -la --time-style=full-iso -- /ckpt": "ls: unrecognized option: time-style=full-iso\nBusyBox v1.36.1 multi-call binary.\n",
			"ls -la -- /ckpt":                       "total 8\ndrwxr-xr-x    2 root     root          4096 Mar 14 09:00 step_100\n",
			strings.Join(NvidiaSMIQuery, " "):       "index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n0, 0 %, 4 MiB, 81559 MiB\n",
		},
		errs: map[string]error{
			"ls -la --time-style=full-iso -- /ckpt": errors.New("command terminated with exit code 1"),
			strings.Join(ncclGrep, " "):             errors.New("command terminated with exit code 1"),
		},
	}
	pod.out[strings.Join(ncclGrep, " ")] = ""
	tasks := []Task{
		{Namespace: "ml", Pod: "p", Container: "c", Name: Checkpoints, Dir: "/ckpt"},
		{Namespace: "ml", Pod: "p", Container: "c", Name: NCCLTransport, Argv: ncclGrep},
		{Namespace: "ml", Pod: "p", Container: "c", Name: NvidiaSMI, Argv: NvidiaSMIQuery},
	}
	notes := Run(context.Background(), dir, pod.exec, tasks, Options{Timeout: time.Second})
	if len(notes) != 0 {
		t.Errorf("notes = %v", notes)
	}
	b, err := os.ReadFile(filepath.Join(dir, "exec", "p", "checkpoints.txt"))
	if err != nil || !strings.HasPrefix(string(b), "/ckpt:\ntotal 8\n") {
		t.Errorf("busybox listing = %q %v", b, err)
	}
	// grep found nothing: no file, no note.
	if _, err := os.Stat(filepath.Join(dir, "exec", "p", NCCLTransport+".txt")); err == nil {
		t.Error("empty grep written")
	}
	if _, err := os.Stat(filepath.Join(dir, "exec", "p", "nvidia-smi.txt")); err != nil {
		t.Error(err)
	}
}

func TestRunTimeout(t *testing.T) {
	slow := func(ctx context.Context, _, _, _ string, _ []string, _, _ io.Writer) error {
		<-ctx.Done()
		return ctx.Err()
	}
	notes := Run(context.Background(), t.TempDir(), slow, []Task{{Namespace: "ml", Pod: "p", Container: "c", Name: NvidiaSMI, Argv: NvidiaSMIQuery}}, Options{Timeout: time.Millisecond})
	if len(notes) != 1 || !strings.Contains(notes[0], "timed out after 1ms") {
		t.Errorf("notes = %v", notes)
	}
}

func TestExecDirLayout(t *testing.T) {
	dir := t.TempDir()
	if got := ExecDir(dir, "ml", "p"); got != filepath.Join(dir, "exec", "p") {
		t.Errorf("v1: %s", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs", "ml", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ExecDir(dir, "ml", "p"); got != filepath.Join(dir, "exec", "ml", "p") {
		t.Errorf("v2: %s", got)
	}
}
