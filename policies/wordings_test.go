package policies_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/policies"
)

// lines is a rule folder's lines.yaml: real lines the rule's signatures
// must classify, each with where it was seen, and harmless look-alikes
// that must yield nothing.
type lines struct {
	// Category is what the match lines yield unless they say otherwise;
	// default the category of the rule folder's path.
	Category string    `yaml:"category"`
	Match    []wording `yaml:"match"`
	NoMatch  []wording `yaml:"nomatch"`
}

// wording is one line and how to place it in a job.
type wording struct {
	Line string `yaml:"line"`
	// Source is where the line was seen (owner/repo#number), Library the
	// library and version that printed it.
	Source  string `yaml:"source"`
	Library string `yaml:"library"`
	// Category is what the line must yield; default the rule's category.
	Category string `yaml:"category"`
	// Also lists other specific categories the line may legitimately
	// yield as well (a CUDA OOM inside a Ray task error, say).
	Also []string `yaml:"also"`
	// Before and After are lines around it (a traceback, a recovery).
	Before []string `yaml:"before"`
	After  []string `yaml:"after"`
	// Setup places the line: "failed" (the log of a container that
	// exited 1; the default for match), "running" (the log of a running,
	// progressing job; the default for nomatch), "dmesg" (a kernel log
	// collected from a failed job's pod), "event" (the message of an
	// event) or "condition:<Kind>" (the message of a condition of a Pod,
	// PodGroup, Workload or the PyTorchJob); see schedulingWording.
	Setup string `yaml:"setup"`
	// Fabric places the job on two nodes that offer a fabric its pods
	// request: "efa" (vpc.amazonaws.com/efa) or "rdma" (rdma/ib). Empty:
	// one pod on one node, where NCCL needs no network.
	Fabric string `yaml:"fabric"`
	// Exec, when set, names an in-pod command output (exec/<pod>/<Exec>,
	// e.g. "nvidia-smi-q.txt") that holds the line and its context
	// instead of the log; Setup still says whether the job failed.
	Exec string `yaml:"exec"`

	// The scheduling setups place the line in an object instead of a log
	// (see schedulingSnapshot): "event" makes it the message of an event,
	// "condition:<Kind>" the message of a condition of an object of that
	// kind. The fields below describe them.
	schedulingWording `yaml:",inline"`
}

// schedulingWording places a line in an event or a condition.
//
//	setup: event                    # the message of an event
//	reason: FailedScheduling        # the event's reason (default FailedScheduling)
//	eventType: Warning              # Normal or Warning (default Warning)
//	object: Pod                     # what the event is about: Pod (the job's pod,
//	                                # default), Pod/<name> (a pod of another job),
//	                                # PodGroup, Workload or PyTorchJob (the job)
//
//	setup: condition:Workload       # the message of a condition of a Pod, a
//	                                # PodGroup, a Workload or the PyTorchJob
//	condition: {type: QuotaReserved, status: "False", reason: Pending}
//	conditions: [...]               # other conditions of the same object
//
//	state: pending                  # the job around it: pending (the default
//	                                # for match: created 90 minutes ago, its pod
//	                                # unscheduled, or no pod while a Kueue
//	                                # workload is not admitted), running (the
//	                                # default for nomatch: scheduled after the
//	                                # event, running and training), failed
//	                                # (its container exited 1) or succeeded
//	apiVersion: scheduling.x-k8s.io/v1alpha1  # of a PodGroup (default Volcano's)
//
// Before and After are not used by these setups.
type schedulingWording struct {
	Reason     string              `yaml:"reason"`
	EventType  string              `yaml:"eventType"`
	Object     string              `yaml:"object"`
	Condition  map[string]string   `yaml:"condition"`
	Conditions []map[string]string `yaml:"conditions"`
	State      string              `yaml:"state"`
	APIVersion string              `yaml:"apiVersion"`
}

// fallbacks are what any failed container yields besides its cause.
var fallbacks = []string{report.CategoryHealthy, "exec.nonzero-exit", "exec.python-error", "job.unexplained-failure", "job.backoff-exceeded"}

type wordingCase struct {
	rule, file string
	index      int
	match      bool
	w          wording
	want       string
}

// loadWordings reads every lines.yaml of the built-in rules.
func loadWordings(t *testing.T) []wordingCase {
	t.Helper()
	var out []wordingCase
	err := fs.WalkDir(policies.FS, "rules", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) != "lines.yaml" {
			return err
		}
		b, err := fs.ReadFile(policies.FS, p)
		if err != nil {
			return err
		}
		var l lines
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&l); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		dir := path.Dir(p)
		area, name := path.Base(path.Dir(dir)), path.Base(dir)
		rule := area + "-" + strings.ReplaceAll(name, "_", "-")
		def := cmpOr(l.Category, area+"."+strings.ReplaceAll(name, "_", "-"))
		for i, w := range l.Match {
			out = append(out, wordingCase{rule: rule, file: p, index: i, match: true, w: w, want: cmpOr(w.Category, def)})
		}
		for i, w := range l.NoMatch {
			out = append(out, wordingCase{rule: rule, file: p, index: i, w: w, want: cmpOr(w.Category, def)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestWordings classifies every example line of every rule through the
// real scanner and rules, placed in a realistic job, and prints a table
// per category. A real line must yield its category and no other specific
// one; a look-alike must yield nothing at all.
func TestWordings(t *testing.T) {
	cases := loadWordings(t)
	if len(cases) == 0 {
		t.Skip("no lines.yaml yet")
	}
	d, err := diagnose.New(context.Background(), diagnose.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ match, matchOK, nomatch, nomatchOK int }
	perCategory := map[string]*tally{}
	for _, tc := range cases {
		kind := "match"
		if !tc.match {
			kind = "nomatch"
		}
		name := fmt.Sprintf("%s/%s/%d", tc.rule, kind, tc.index)
		t.Run(name, func(t *testing.T) {
			if tc.w.Line == "" || (tc.match && (tc.w.Source == "" || tc.w.Library == "")) {
				t.Fatalf("%s: %s[%d] needs line, source and library", tc.file, kind, tc.index)
			}
			dir := writeWordingSnapshot(t, tc)
			rep, err := d.Diagnose(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Jobs) != 1 {
				t.Fatalf("jobs = %d", len(rep.Jobs))
			}
			// The scheduling setups write objects from the wording's
			// fields: one that does not parse would test nothing.
			if isScheduling(setupOf(tc)) && len(rep.Warnings) > 0 {
				t.Fatalf("%s %s[%d]: the snapshot does not read cleanly: %q", tc.file, kind, tc.index, rep.Warnings)
			}
			j := &rep.Jobs[0]
			got := map[string]bool{}
			for _, f := range j.Findings {
				got[f.Category] = true
			}
			tl := perCategory[tc.want]
			if tl == nil {
				tl = &tally{}
				perCategory[tc.want] = tl
			}
			var problems []string
			if tc.match {
				tl.match++
				if !got[tc.want] {
					problems = append(problems, "does not yield "+tc.want)
				}
				for c := range got {
					if c != tc.want && !slices.Contains(fallbacks, c) && !slices.Contains(tc.w.Also, c) {
						problems = append(problems, "also yields "+c)
					}
				}
			} else {
				tl.nomatch++
				for c := range got {
					if !slices.Contains(fallbacks, c) || (runningSetup(tc) && c != report.CategoryHealthy) {
						problems = append(problems, "yields "+c)
					}
				}
			}
			if len(problems) > 0 {
				sort.Strings(problems)
				t.Errorf("%s %s[%d] (%s, %s): %q %s", tc.file, kind, tc.index, tc.w.Source, tc.w.Library, tc.w.Line, strings.Join(problems, ", "))
				return
			}
			if tc.match {
				tl.matchOK++
			} else {
				tl.nomatchOK++
			}
		})
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CATEGORY\tREAL LINES\tCLASSIFIED\tLOOK-ALIKES\tQUIET")
	total := tally{}
	for _, c := range slices.Sorted(mapsKeys(perCategory)) {
		x := perCategory[c]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", c, x.match, x.matchOK, x.nomatch, x.nomatchOK)
		total.match += x.match
		total.matchOK += x.matchOK
		total.nomatch += x.nomatch
		total.nomatchOK += x.nomatchOK
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\n", total.match, total.matchOK, total.nomatch, total.nomatchOK)
	tw.Flush()
	t.Logf("wordings per category:\n%s", b.String())
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func setupOf(tc wordingCase) string {
	if tc.w.Setup != "" {
		return tc.w.Setup
	}
	if tc.match {
		return "failed"
	}
	return "running"
}

// runningSetup reports whether the line sits in a running, progressing
// job, where a look-alike must leave only the healthy verdict.
func runningSetup(tc wordingCase) bool {
	if isScheduling(setupOf(tc)) {
		return stateOf(tc) == "running" || stateOf(tc) == "succeeded"
	}
	return setupOf(tc) == "running"
}

// writeWordingSnapshot writes a one-pod PyTorchJob whose log holds the
// line among the noise real jobs print.
func writeWordingSnapshot(t *testing.T, tc wordingCase) string {
	t.Helper()
	dir := t.TempDir()
	setup := setupOf(tc)
	if isScheduling(setup) {
		return writeSchedulingSnapshot(t, tc, dir)
	}
	var objects string
	switch setup {
	case "failed", "dmesg":
		objects = fmt.Sprintf(jobYAML, failedConditions, "Failed", failedState)
	case "running":
		objects = fmt.Sprintf(jobYAML, runningConditions, "Running", runningState)
	default:
		t.Fatalf("%s: setup %q: want failed, running, dmesg, event or condition:<Kind>", tc.file, setup)
	}
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tc.w.Fabric != "" {
		objects = withFabric(t, tc, objects)
	}
	write("snapshot.yaml", "collectedAt: '2026-05-04T10:30:00Z'\ncluster: wordings\n")
	write("objects.yaml", objects)
	var log []string
	log = append(log, startupNoise...)
	if tc.w.Fabric != "" {
		// The noise's transport lines say what a job without a fabric
		// prints; with one, the line under test says it.
		log = slices.DeleteFunc(log, func(l string) bool {
			return strings.Contains(l, "NET/Plugin") || strings.Contains(l, "Using network")
		})
	}
	if setup == "running" {
		log = append(log, steps(1, 40)...)
	}
	block := append(append(append([]string{}, tc.w.Before...), tc.w.Line), tc.w.After...)
	switch {
	case setup == "dmesg":
		write("exec/wording-master-0/dmesg.txt", strings.Join(append(dmesgNoise, block...), "\n")+"\n")
	case tc.w.Exec != "":
		write("exec/wording-master-0/"+path.Base(tc.w.Exec), strings.Join(block, "\n")+"\n")
	default:
		log = append(log, block...)
	}
	if setup == "running" {
		log = append(log, steps(41, 80)...)
	}
	write("logs/wording-master-0/pytorch.log", strings.Join(log, "\n")+"\n")
	return dir
}

// withFabric turns the one-pod job into a master and a worker on two nodes
// that offer the fabric, each pod requesting it.
func withFabric(t *testing.T, tc wordingCase, objects string) string {
	t.Helper()
	resources := map[string]string{"efa": `vpc.amazonaws.com/efa: "32"`, "rdma": `rdma/ib: "1"`}
	res, ok := resources[tc.w.Fabric]
	if !ok {
		t.Fatalf("%s: fabric %q: want efa or rdma", tc.file, tc.w.Fabric)
	}
	const limits = `limits: {nvidia.com/gpu: "8", memory: 480Gi}`
	objects = strings.ReplaceAll(objects, limits, strings.TrimSuffix(limits, "}")+", "+res+"}")
	master, status := strings.Index(objects, "    Master:\n"), strings.Index(objects, "status:\n")
	worker := strings.Replace(objects[master:status], "    Master:", "    Worker:", 1)
	objects = objects[:status] + worker + objects[status:]
	pod := objects[strings.Index(objects, "apiVersion: v1\nkind: Pod"):]
	pod = strings.NewReplacer("wording-master-0", "wording-worker-0", "replica-type: master", "replica-type: worker",
		"gpu-node-7", "gpu-node-8", "000000000002", "000000000003").Replace(pod)
	objects += "---\n" + pod
	for _, node := range []string{"gpu-node-7", "gpu-node-8"} {
		objects += fmt.Sprintf(nodeYAML, node, res, res)
	}
	return objects
}

const nodeYAML = `---
apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {node.kubernetes.io/instance-type: p5.48xlarge}
status:
  capacity: {cpu: "192", memory: 2048Gi, nvidia.com/gpu: "8", %s}
  allocatable: {cpu: "191", memory: 2000Gi, nvidia.com/gpu: "8", %s}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, lastTransitionTime: "2026-05-01T00:00:00Z"}
`

func steps(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("{'loss': %.4f, 'grad_norm': %.3f, 'learning_rate': 1.9e-05, 'epoch': %.2f}", 2.1-float64(i)*0.004, 0.8+float64(i%7)*0.01, float64(i)/400))
		if i%10 == 0 {
			out = append(out, fmt.Sprintf(" %d%%|██▌       | %d/400 [%02d:%02d<41:10,  6.12s/it]", i*100/400, i, i*6/60, i*6%60))
		}
	}
	return out
}

var startupNoise = []string{
	"+ torchrun --nnodes=1 --nproc_per_node=8 --master_port=29500 train.py --config configs/sft.yaml",
	"[2026-05-04 09:00:09,720] torch.distributed.run: [WARNING] ",
	"[2026-05-04 09:00:09,720] torch.distributed.run: [WARNING] *****************************************",
	"[2026-05-04 09:00:09,720] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
	"[2026-05-04 09:00:09,720] torch.distributed.run: [WARNING] *****************************************",
	"[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
	"/usr/local/lib/python3.10/dist-packages/transformers/training_args.py:1474: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
	"  warnings.warn(",
	"wording-master-0:212:212 [0] NCCL INFO Bootstrap : Using eth0:10.244.3.17<0>",
	"wording-master-0:212:212 [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal implementation",
	"wording-master-0:212:212 [0] NCCL INFO cudaDriverVersion 12040",
	"NCCL version 2.20.5+cuda12.4",
	"wording-master-0:212:290 [0] NCCL INFO Using network Socket",
	"wording-master-0:212:290 [0] NCCL INFO comm 0x5581c9a0 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0",
	"wording-master-0:212:290 [0] NCCL INFO Connected all rings",
	"wording-master-0:212:290 [0] NCCL INFO ncclCommInitRank comm 0x5581c9a0 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1c2d3e4f5a6b7c8d - Init COMPLETE",
	"Loading checkpoint shards: 100%|██████████| 3/3 [00:08<00:00,  2.71s/it]",
	"trainable params: 41,943,040 || all params: 6,779,359,232 || trainable%: 0.6187",
	"***** Running training *****",
	"  Num examples = 51,200",
	"  Num Epochs = 1",
	"  Instantaneous batch size per device = 4",
	"  Total optimization steps = 400",
}

var dmesgNoise = []string{
	"[    0.000000] Linux version 5.15.0-1061-nvidia (buildd@lcy02-amd64-042) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0) #62-Ubuntu SMP",
	"[   12.847112] nvidia: loading out-of-tree module taints kernel.",
	"[   13.101934] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024",
	"[   14.220871] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.54.15",
}

const failedConditions = `    - {type: Created, status: "True", reason: PyTorchJobCreated, lastTransitionTime: "2026-05-04T08:59:00Z"}
    - {type: Running, status: "False", reason: PyTorchJobRunning, lastTransitionTime: "2026-05-04T10:00:00Z"}
    - {type: Failed, status: "True", reason: PyTorchJobFailed, message: "PyTorchJob wording is failed because 1 Master replica(s) failed.", lastTransitionTime: "2026-05-04T10:00:00Z"}`

const runningConditions = `    - {type: Created, status: "True", reason: PyTorchJobCreated, lastTransitionTime: "2026-05-04T08:59:00Z"}
    - {type: Running, status: "True", reason: PyTorchJobRunning, lastTransitionTime: "2026-05-04T09:00:00Z"}`

const failedState = `state:
        terminated: {exitCode: 1, reason: Error, startedAt: "2026-05-04T09:00:00Z", finishedAt: "2026-05-04T10:00:00Z"}`

const runningState = `state:
        running: {startedAt: "2026-05-04T09:00:00Z"}`

const jobYAML = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: wording
  namespace: ml
  uid: 5f0e7a52-0000-4000-8000-000000000001
  creationTimestamp: "2026-05-04T08:59:00Z"
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example.com/ml/train:2024.05-pt2.3
            resources:
              limits: {nvidia.com/gpu: "8", memory: 480Gi}
            volumeMounts:
            - {name: dshm, mountPath: /dev/shm}
          volumes:
          - name: dshm
            emptyDir: {medium: Memory}
status:
  conditions:
%s
---
apiVersion: v1
kind: Pod
metadata:
  name: wording-master-0
  namespace: ml
  uid: 5f0e7a52-0000-4000-8000-000000000002
  creationTimestamp: "2026-05-04T08:59:01Z"
  labels:
    training.kubeflow.org/job-name: wording
    training.kubeflow.org/replica-type: master
    training.kubeflow.org/replica-index: "0"
  ownerReferences:
  - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: wording, uid: 5f0e7a52-0000-4000-8000-000000000001, controller: true}
spec:
  nodeName: gpu-node-7
  containers:
  - name: pytorch
    image: registry.example.com/ml/train:2024.05-pt2.3
    resources:
      limits: {nvidia.com/gpu: "8", memory: 480Gi}
    volumeMounts:
    - {name: dshm, mountPath: /dev/shm}
  volumes:
  - name: dshm
    emptyDir: {medium: Memory}
status:
  phase: %s
  startTime: "2026-05-04T08:59:02Z"
  containerStatuses:
  - name: pytorch
    image: registry.example.com/ml/train:2024.05-pt2.3
    ready: false
    restartCount: 0
    %s
`
