// Package benchgen generates the inputs of traindoc's benchmarks: training
// logs of any size and snapshots of fleets of jobs, deterministically from
// a seed, so that a measurement can be repeated anywhere without shipping
// gigabytes. What it writes resembles what kubectl and a distributed
// PyTorch job print: torchrun and NCCL start-up chatter, step lines in the
// styles of the Hugging Face Trainer, Megatron-LM, DeepSpeed and plain
// logging, progress bars, warnings, checkpoint saves, and, in a failing
// rank, a CUDA out-of-memory traceback followed by torchrun's summary;
// in its peers, NCCL watchdog timeouts.
package benchgen

import (
	"bufio"
	"io"
	"strconv"
	"time"
)

// rng is xorshift64: the output never depends on the standard library's
// random number implementation.
type rng uint64

func newRNG(seed uint64) *rng {
	r := rng(seed*0x9e3779b97f4a7c15 | 1)
	return &r
}

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = rng(x)
	return x
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) unit() float64 { return float64(r.next()>>11) / float64(1<<53) }

// Ending is how a log ends.
type Ending int

// Endings.
const (
	// Healthy logs train until the size is reached.
	Healthy Ending = iota
	// CUDAOOM logs end with a rank's CUDA out-of-memory error and
	// torchrun's summary of the failure.
	CUDAOOM
	// NCCLTimeout logs end with the NCCL watchdog's timeout, as a peer of
	// a failed rank sees it.
	NCCLTimeout
)

// LogOptions describe one log.
type LogOptions struct {
	// Size is the number of bytes to write, about (the last line and the
	// ending may add a few kilobytes).
	Size int64
	Seed uint64
	// Host is the pod name NCCL prints; Ranks the local ranks (GPUs) of
	// the pod, RankBase the global rank of its first.
	Host     string
	Ranks    int
	RankBase int
	// End is when the last line is written: the log's times are laid
	// out backwards from it, so that a healthy log looks current.
	End    time.Time
	Ending Ending
	// Timestamps prefixes lines as `kubectl logs --timestamps` does.
	Timestamps bool
}

// logWriter formats lines into a buffered writer without fmt, so that a
// gigabyte takes seconds.
type logWriter struct {
	w    *bufio.Writer
	r    *rng
	o    LogOptions
	now  time.Time
	n    int64
	buf  []byte
	step int
	loss float64
}

// WriteLog writes one log. It runs twice, the first time without
// writing, to learn how long the log spans.
func WriteLog(out io.Writer, o LogOptions) error {
	if o.Ranks <= 0 {
		o.Ranks = 8
	}
	if o.Host == "" {
		o.Host = "train-worker-0"
	}
	if o.End.IsZero() {
		o.End = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	}
	var origin time.Time
	span, err := writeLog(io.Discard, o, origin)
	if err != nil {
		return err
	}
	_, err = writeLog(out, o, o.End.Add(-span))
	return err
}

func writeLog(out io.Writer, o LogOptions, start time.Time) (time.Duration, error) {
	lw := &logWriter{w: bufio.NewWriterSize(out, 1<<20), r: newRNG(o.Seed), o: o, now: start, loss: 10.9}
	lw.header()
	for lw.n < o.Size {
		lw.body()
	}
	switch o.Ending {
	case CUDAOOM:
		lw.cudaOOM()
	case NCCLTimeout:
		lw.ncclTimeout()
	}
	return lw.now.Sub(start), lw.w.Flush()
}

func (l *logWriter) begin() {
	l.buf = l.buf[:0]
	if l.o.Timestamps {
		l.buf = l.now.AppendFormat(l.buf, "2006-01-02T15:04:05.000000000Z")
		l.buf = append(l.buf, ' ')
	}
}

func (l *logWriter) end() {
	l.buf = append(l.buf, '\n')
	n, _ := l.w.Write(l.buf)
	l.n += int64(n)
}

func (l *logWriter) line(parts ...string) {
	l.begin()
	for _, p := range parts {
		l.buf = append(l.buf, p...)
	}
	l.end()
}

func (l *logWriter) tick(ms int) { l.now = l.now.Add(time.Duration(ms) * time.Millisecond) }

func (l *logWriter) rank() int { return l.o.RankBase + l.r.intn(l.o.Ranks) }

func (l *logWriter) pyTime() []byte {
	return l.now.AppendFormat(nil, "2006-01-02 15:04:05,000")
}

func (l *logWriter) ncclPrefix(local int) []byte {
	b := append([]byte(l.o.Host), ':')
	b = strconv.AppendInt(b, int64(100+local), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(180+local), 10)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(local), 10)
	return append(b, "] NCCL INFO "...)
}

func (l *logWriter) header() {
	l.line("+ torchrun --nnodes=$PET_NNODES --nproc_per_node=", strconv.Itoa(l.o.Ranks), " --rdzv_backend=c10d train.py --config configs/llama.yaml")
	l.line("W0314 09:00:00.123000 1 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.")
	for local := 0; local < l.o.Ranks; local++ {
		p := string(l.ncclPrefix(local))
		l.tick(3)
		l.line(p, "Bootstrap : Using eth0:10.244.61.17<0>")
		l.line(p, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.")
		l.line(p, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.244.61.17<0>")
		l.line(p, "Using network IB")
		l.line(p, "ncclCommInitRank comm 0x55d1c8a0 rank ", strconv.Itoa(l.o.RankBase+local), " nranks 512 cudaDev ", strconv.Itoa(local), " busId 18000 - Init START")
		l.line(p, "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read")
		l.line(p, "Connected all rings")
		l.line(p, "ncclCommInitRank comm 0x55d1c8a0 rank ", strconv.Itoa(l.o.RankBase+local), " nranks 512 cudaDev ", strconv.Itoa(local), " busId 18000 - Init COMPLETE")
	}
	l.line("[rank0]: model: LlamaForCausalLM n_layers=80 hidden=8192 params=70.55B")
}

// body writes one step's worth of lines in a style chosen by the step.
func (l *logWriter) body() {
	l.step++
	dt := 350 + l.r.intn(40)
	l.tick(dt)
	if l.loss > 1.9 {
		l.loss -= 0.00003 * (l.loss - 1.8)
	}
	loss := l.loss + (l.r.unit()-0.5)*0.05
	l.begin()
	switch l.step % 4 {
	case 0: // Hugging Face Trainer
		l.buf = append(l.buf, "{'loss': "...)
		l.buf = strconv.AppendFloat(l.buf, loss, 'f', 4, 64)
		l.buf = append(l.buf, ", 'grad_norm': "...)
		l.buf = strconv.AppendFloat(l.buf, 0.2+l.r.unit(), 'f', 4, 64)
		l.buf = append(l.buf, ", 'learning_rate': 1.9995e-05, 'epoch': 0."...)
		l.buf = strconv.AppendInt(l.buf, int64(l.step%100), 10)
		l.buf = append(l.buf, '}')
	case 1: // Megatron-LM
		l.buf = append(l.buf, " iteration     "...)
		l.buf = strconv.AppendInt(l.buf, int64(l.step), 10)
		l.buf = append(l.buf, "/  500000 | consumed samples:     "...)
		l.buf = strconv.AppendInt(l.buf, int64(l.step*128), 10)
		l.buf = append(l.buf, " | elapsed time per iteration (ms): "...)
		l.buf = strconv.AppendFloat(l.buf, float64(dt)+l.r.unit(), 'f', 1, 64)
		l.buf = append(l.buf, " | learning rate: 1.500E-05 | global batch size:   128 | lm loss: "...)
		l.buf = strconv.AppendFloat(l.buf, loss, 'E', 6, 64)
		l.buf = append(l.buf, " | loss scale: 1.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |"...)
	case 2: // DeepSpeed
		l.buf = append(l.buf, "[INFO] [logging.py:128:log_dist] [Rank 0] step="...)
		l.buf = strconv.AppendInt(l.buf, int64(l.step), 10)
		l.buf = append(l.buf, ", skipped=0, lr=[1.9e-05, 1.9e-05], mom=[(0.9, 0.95), (0.9, 0.95)]"...)
	default: // plain logging with throughput
		l.buf = append(l.buf, l.pyTime()...)
		l.buf = append(l.buf, " - train - INFO - step="...)
		l.buf = strconv.AppendInt(l.buf, int64(l.step), 10)
		l.buf = append(l.buf, " loss="...)
		l.buf = strconv.AppendFloat(l.buf, loss, 'f', 4, 64)
		l.buf = append(l.buf, " lr=1.500e-04 step_time="...)
		l.buf = strconv.AppendFloat(l.buf, float64(dt)/1000, 'f', 3, 64)
		l.buf = append(l.buf, "s tokens_per_sec="...)
		l.buf = strconv.AppendInt(l.buf, int64(4096*1000*8/dt), 10)
	}
	l.end()
	// Chatter around the steps.
	switch x := l.r.intn(100); {
	case x < 12:
		local := l.r.intn(l.o.Ranks)
		l.begin()
		l.buf = append(l.buf, l.ncclPrefix(local)...)
		l.buf = append(l.buf, "Channel 0"...)
		l.buf = strconv.AppendInt(l.buf, int64(l.r.intn(8)), 10)
		l.buf = append(l.buf, "/0 : "...)
		l.buf = strconv.AppendInt(l.buf, int64(l.rank()), 10)
		l.buf = append(l.buf, "[1] -> 9[1] [receive] via NET/IB/0/GDRDMA"...)
		l.end()
	case x < 18:
		l.begin()
		l.buf = append(l.buf, " 27%|██▋       | "...)
		l.buf = strconv.AppendInt(l.buf, int64(l.step), 10)
		l.buf = append(l.buf, "/500000 [1:01:34<2:42:58,  3.12s/it]"...)
		l.end()
	case x < 21:
		l.line("/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed.")
	case x < 23:
		l.begin()
		l.buf = append(l.buf, "[rank"...)
		l.buf = strconv.AppendInt(l.buf, int64(l.rank()), 10)
		l.buf = append(l.buf, "]:[W314 09:22:44.000000 ProcessGroupNCCL.cpp:1250] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())"...)
		l.end()
	case x < 24:
		l.line("W0314 09:22:44.000000 140 torch/distributed/elastic/agent/server/api.py:704] [default] Worker group healthy")
	case x < 25:
		l.begin()
		l.buf = append(l.buf, "Map (num_proc=16):  49%|████▉     | "...)
		l.buf = strconv.AppendInt(l.buf, int64(l.r.intn(184211)), 10)
		l.buf = append(l.buf, "/184211 [00:03<00:03,  30700.00 examples/s]"...)
		l.end()
	}
	if l.step%2000 == 0 {
		l.line(string(l.pyTime()), " - train - INFO - saving checkpoint step_", strconv.Itoa(l.step), " to /ckpt/llama70b")
		l.tick(38000)
		l.line(string(l.pyTime()), " - train - INFO - checkpoint step_", strconv.Itoa(l.step), " saved (140.2 GB, 38.1s)")
	}
}

func (l *logWriter) cudaOOM() {
	r := "[rank" + strconv.Itoa(l.o.RankBase+5) + "]: "
	site := "/usr/local/lib/python3.10/dist-packages"
	l.tick(2300)
	for _, s := range []string{
		r + "Traceback (most recent call last):",
		r + "  File \"/workspace/train.py\", line 412, in <module>",
		r + "    main()",
		r + "  File \"/workspace/train.py\", line 366, in main",
		r + "    logits, loss = model(x, y)",
		r + "  File \"" + site + "/torch/nn/modules/module.py\", line 1736, in _wrapped_call_impl",
		r + "    return self._call_impl(*args, **kwargs)",
		r + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.12 GiB. GPU 5 has a total capacity of 79.11 GiB of which 2.47 GiB is free. Process 106 has 76.63 GiB memory in use. Of the allocated memory 71.96 GiB is allocated by PyTorch, and 3.91 GiB is reserved by PyTorch but unallocated.",
	} {
		l.line(s)
	}
	l.tick(1800)
	for pid := 100; pid < 100+l.o.Ranks; pid++ {
		if pid != 105 {
			l.line("W0314 10:01:02.000000 1 torch/distributed/elastic/multiprocessing/api.py:897] Sending process ", strconv.Itoa(pid), " closing signal SIGTERM")
		}
	}
	l.line("E0314 10:01:03.000000 1 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 5 (pid: 105) of binary: /usr/bin/python3")
	for _, s := range []string{
		"Traceback (most recent call last):",
		"  File \"/usr/local/bin/torchrun\", line 8, in <module>",
		"    sys.exit(main())",
		"  File \"" + site + "/torch/distributed/launcher/api.py\", line 269, in launch_agent",
		"    raise ChildFailedError(",
		"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
		"============================================================",
		"train.py FAILED",
		"------------------------------------------------------------",
		"Root Cause (first observed failure):",
		"[0]:",
		"  host      : " + l.o.Host,
		"  rank      : " + strconv.Itoa(l.o.RankBase+5) + " (local_rank: 5)",
		"  exitcode  : 1 (pid: 105)",
		"============================================================",
	} {
		l.line(s)
	}
}

func (l *logWriter) ncclTimeout() {
	l.tick(600000)
	for local := 0; local < l.o.Ranks; local++ {
		rank := strconv.Itoa(l.o.RankBase + local)
		l.line("[rank", rank, "]:[E314 10:11:02.123000 ProcessGroupNCCL.cpp:616] [Rank ", rank, "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88123, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.")
	}
	l.line("E0314 10:11:05.000000 1 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 100) of binary: /usr/bin/python3")
}
