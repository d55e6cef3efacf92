package logscan

import (
	"fmt"
	"io"
	"math/rand"
	"strings"
	"time"
)

// benchSignatures generates a realistic full signature set: real failure
// messages of the training stack (CUDA, NCCL, EFA, PyTorch elastic, Ray,
// storage, Python), each with a hint, plus a few folding and hint-less
// ones, as a rule set of about n signatures would hold.
func benchSignatures(n int) []map[string]any {
	base := []struct{ pattern, hint string }{
		{`CUDA out of memory\. Tried to allocate (?P<size>[\d.]+ [KMG]iB)`, "CUDA out of memory"},
		{`CUDA error: an illegal memory access was encountered`, "illegal memory access"},
		{`CUDA error: device-side assert triggered`, "device-side assert"},
		{`CUDA error: unspecified launch failure`, "unspecified launch failure"},
		{`RuntimeError: CUDA error: uncorrectable ECC error encountered`, "uncorrectable ECC"},
		{`NCCL error in: (?P<where>\S+), unhandled system error`, "unhandled system error"},
		{`NCCL error in: (?P<where>\S+), remote process exited`, "remote process exited"},
		{`Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+), OpType=(?P<op>\w+)`, "Watchdog caught collective"},
		{`NCCL WARN NET/OFI .*(?:error|failed)`, "NET/OFI"},
		{`NCCL WARN NET/Socket : (?P<msg>.*)`, "NET/Socket"},
		{`NCCL INFO NET/Socket : Using \[0\]`, "NCCL INFO NET/Socket"},
		{`ncclSystemError: System call \(e\.g\. socket, malloc\) or external library call failed`, "ncclSystemError"},
		{`ncclInternalError: Internal check failed`, "ncclInternalError"},
		{`ncclRemoteError: A call failed possibly due to a network error`, "ncclRemoteError"},
		{`fi_getinfo failed: (?P<err>.*)`, "fi_getinfo failed"},
		{`Failed to initialize any NET plugin`, "Failed to initialize any NET plugin"},
		{`torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError`, "ChildFailedError"},
		{`torch\.distributed\.DistNetworkError: (?P<msg>.*)`, "DistNetworkError"},
		{`RendezvousTimeoutError`, "RendezvousTimeoutError"},
		{`RendezvousClosedError`, "RendezvousClosedError"},
		{`The server socket has failed to listen on any local network address`, "failed to listen on any local"},
		{`Connection reset by peer`, "Connection reset by peer"},
		{`(?i)connection refused`, "connection refused"},
		{`Sending process (?P<pid>\d+) closing signal SIGTERM`, "closing signal SIGTERM"},
		{`failed \(exitcode: (?P<code>-?\d+)\) local_rank: (?P<rank>\d+)`, "failed (exitcode:"},
		{`Signal (?P<sig>\d+) \(SIGKILL\) received by PID`, "(SIGKILL) received"},
		{`(?i)\bKilled\b`, "killed"},
		{`OSError: \[Errno 28\] No space left on device`, "No space left on device"},
		{`OSError: \[Errno 122\] Disk quota exceeded`, "Disk quota exceeded"},
		{`ERROR: Unexpected bus error encountered in worker`, "Unexpected bus error"},
		{`DataLoader worker \(pid\(s\) (?P<pids>[\d, ]+)\) exited unexpectedly`, "exited unexpectedly"},
		{`ImportError: (?P<msg>.*)`, "ImportError: "},
		{`ModuleNotFoundError: No module named '(?P<mod>[^']+)'`, "ModuleNotFoundError"},
		{`FileNotFoundError: \[Errno 2\] No such file or directory: '(?P<path>[^']+)'`, "FileNotFoundError"},
		{`PermissionError: \[Errno 13\] Permission denied: '(?P<path>[^']+)'`, "PermissionError"},
		{`huggingface_hub\.utils\._errors\.(?:GatedRepoError|RepositoryNotFoundError)`, "huggingface_hub.utils"},
		{`requests\.exceptions\.ConnectionError: (?P<msg>.*)`, "requests.exceptions.ConnectionError"},
		{`Loss is NaN|loss=nan|'loss': nan`, ""},
		{`Gradient overflow\. Skipping step, loss scaler \d+ reducing loss scale to (?P<scale>\S+)`, "Gradient overflow"},
		{`ray\.exceptions\.RayTaskError\((?P<cause>\w+)\)`, "RayTaskError"},
		{`ray\.exceptions\.OutOfMemoryError: Task was killed due to the node running low on memory`, "running low on memory"},
		{`ray\.exceptions\.ActorDiedError`, "ActorDiedError"},
		{`ray\.exceptions\.RaySystemError`, "RaySystemError"},
		{`The actor died unexpectedly before finishing this task`, "actor died unexpectedly"},
		{`Raylet is terminated`, "Raylet is terminated"},
		{`GCS server is not reachable|Failed to connect to GCS`, ""},
		{`Worker (?P<rank>\d+) has failed`, "has failed"},
		{`Some workers returned results while others didn't`, "Some workers returned"},
		{`DeepSpeed.*OVERFLOW!`, "OVERFLOW!"},
		{`\[Rank (?P<rank>\d+)\] Watchdog caught collective operation timeout`, "Watchdog caught"},
		{`Segmentation fault \(core dumped\)`, "Segmentation fault"},
		{`Fatal Python error: (?P<msg>.*)`, "Fatal Python error"},
		{`Bus error \(core dumped\)`, "Bus error"},
		{`(?i)Xid \d+`, "xid"},
		{`NVRM: Xid \(PCI:(?P<pci>[^)]+)\): (?P<xid>\d+)`, "NVRM: Xid"},
		{`GPU has fallen off the bus`, "fallen off the bus"},
		{`unable to open shared memory object </torch_\d+_\d+>`, "unable to open shared memory"},
		{`Cannot allocate memory`, "Cannot allocate memory"},
		{`AssertionError: (?P<msg>.*)`, "AssertionError"},
		{`ValueError: (?P<msg>.*)`, "ValueError: "},
		{`KeyError: (?P<key>.*)`, "KeyError: "},
		{`torch\._dynamo\.exc\.(?P<exc>\w+)`, "torch._dynamo.exc"},
		{`Timed out initializing process group in store based barrier`, "store based barrier"},
		{`(?i)efa.*(?:unreachable|timeout)`, ""},
		{`EFA error|fi_cq_readerr`, ""},
		{`Expected all tensors to be on the same device`, "same device"},
		{`CUBLAS_STATUS_(?P<status>[A-Z_]+)`, "CUBLAS_STATUS_"},
		{`cuDNN error: (?P<err>\w+)`, "cuDNN error"},
		{`NaN or Inf found in input tensor`, "NaN or Inf found"},
		{`checkpoint(?:ing)? failed: (?P<msg>.*)`, "failed: "},
		{`torch\.distributed\.checkpoint\.api\.CheckpointException`, "CheckpointException"},
		{`Exception in thread (?P<thread>\S+)`, "Exception in thread"},
		{`BrokenPipeError: \[Errno 32\] Broken pipe`, "Broken pipe"},
		{`(?i)too many open files`, "too many open files"},
	}
	components := []string{"trainer", "dataloader", "optimizer", "checkpoint", "collective", "launcher", "tokenizer", "evaluator"}
	var out []map[string]any
	for i := 0; len(out) < n; i++ {
		b := base[i%len(base)]
		id := fmt.Sprintf("sig-%03d", i)
		pattern, hint := b.pattern, b.hint
		if i >= len(base) {
			// Variants: the same failure reported by another component.
			comp := components[(i/len(base))%len(components)]
			pattern = fmt.Sprintf(`%s(?:\[\d+\])?: .*%s`, comp, pattern)
			if hint == "" {
				hint = comp + ": "
			}
		}
		m := map[string]any{"id": id, "pattern": pattern}
		if hint != "" {
			m["hint"] = hint
		}
		out = append(out, m)
	}
	return out
}

// logTemplates are realistic lines of a healthy training log; %d and %f
// are filled with varying numbers.
var logTemplates = []string{
	" 27%%|██▋       | %d/4317 [1:01:34<2:42:58,  3.12s/it]",
	"{'loss': %f, 'grad_norm': 0.8731, 'learning_rate': 1.9995e-05, 'epoch': 0.%d}",
	"[2026-03-14 09:12:33,100] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[1.9e-05, 1.9e-05], mom=[(0.9, 0.95), (0.9, 0.95)]",
	"[2026-03-14 09:12:33,101] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=100, RunningAvgSamplesPerSec=45.61, CurrSamplesPerSec=%f, MemAllocated=10.2GB, MaxMemAllocated=20.1GB",
	"llama13b-sft-master-0:412:%d [0] NCCL INFO Channel 03/0 : 0[0] -> 1[1] via P2P/IPC/read",
	"llama13b-sft-master-0:412:%d [0] NCCL INFO Connected all rings",
	"/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. (%d)",
	"INFO:root:Saving model checkpoint to /checkpoints/llama13b-sft/checkpoint-%d",
	" iteration      %d/  500000 | consumed samples:        12800 | elapsed time per iteration (ms): %f | learning rate: 1.500E-05 | global batch size:   128 | lm loss: 7.123E+00 | loss scale: 1.0 | grad norm: 1.234 |",
	"(RayTrainWorker pid=%d, ip=10.0.0.7) [rank0]: epoch 3 batch 120 done in 0.%ds",
	"W0314 09:22:44.000000 140 torch/distributed/elastic/agent/server/api.py:%d] [default] Worker group healthy",
	"Map (num_proc=16):  49%%|████▉     | %d/184211 [00:03<00:03,  30700.00 examples/s]",
}

// logReader produces size bytes of a realistic, timestamped training log
// with a failure every rareEvery lines. It builds one block of lines and
// repeats it, so that generation costs little next to scanning.
type logReader struct {
	block []byte
	off   int
	left  int64
}

func newLogReader(size int64, rareEvery int) *logReader {
	rng := rand.New(rand.NewSource(42))
	var b strings.Builder
	t := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	rare := []string{
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB",
		"[rank3]:[E314 09:22:33.123 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.",
		"OSError: [Errno 28] No space left on device",
	}
	for i := 0; b.Len() < 4<<20; i++ {
		t = t.Add(time.Duration(rng.Intn(200)) * time.Millisecond)
		b.WriteString(t.Format(time.RFC3339Nano))
		b.WriteByte(' ')
		if rareEvery > 0 && i%rareEvery == rareEvery-1 {
			b.WriteString(rare[rng.Intn(len(rare))])
		} else {
			tpl := logTemplates[rng.Intn(len(logTemplates))]
			line := strings.NewReplacer("%d", fmt.Sprint(rng.Intn(100000)), "%f", fmt.Sprintf("%.4f", rng.Float64()*10), "%%", "%").Replace(tpl)
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	return &logReader{block: []byte(b.String()), left: size}
}

func (r *logReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := copy(p, r.block[r.off:])
	r.off = (r.off + n) % len(r.block)
	r.left -= int64(n)
	return n, nil
}

func (r *logReader) reset(size int64) { r.off, r.left = 0, size }
