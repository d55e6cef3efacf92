package logscan

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand"
	"strings"
	"time"
)

// The healthy-log generator writes what a training job that works prints
// to its container log, in the styles of the common training stacks:
// torchrun and NCCL start-up noise, then per-step output of Megatron-LM,
// the Hugging Face Trainer, DeepSpeed, PyTorch Lightning, a plain Python
// loop, or Ray Train, with the warnings, progress bars (carriage-return
// redraws), checkpoints and fp16 loss-scaler messages that come with
// them. The line formats follow what those tools print; numbers vary with
// a seeded generator, so that a log is the same on every run.
//
// It lives in a test file: the tests of this package (and, through the
// export of test files, those of logscan_test) measure gates and speed
// on it.

// HealthyLogVersion changes whenever the generator's output does, so
// that logs cached by benchmarks are written again.
const HealthyLogVersion = 1

// HealthyProfiles are the styles WriteHealthyLog knows.
var HealthyProfiles = []string{"megatron", "hf-trainer", "deepspeed", "lightning", "plain", "ray-train"}

// WriteHealthyLog writes a healthy log of profile with about steps
// training steps. Lines carry kubectl --timestamps prefixes except in the
// plain profile, whose logger writes its own times.
func WriteHealthyLog(w io.Writer, profile string, steps int, seed int64) error {
	g := &healthyGen{
		w:      bufio.NewWriterSize(w, 64<<10),
		rng:    rand.New(rand.NewSource(seed)),
		now:    time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC),
		stamps: profile != "plain",
		job:    []string{"llama13b-sft", "gpt-neox-20b", "mistral-7b-dpo", "bert-large-mlm"}[seed&3],
	}
	g.torchrunStart()
	switch profile {
	case "megatron":
		g.megatron(steps)
	case "hf-trainer":
		g.hfTrainer(steps, "")
	case "deepspeed":
		g.deepspeed(steps)
	case "lightning":
		g.lightning(steps)
	case "plain":
		g.plain(steps)
	case "ray-train":
		g.rayTrain(steps)
	default:
		return fmt.Errorf("unknown profile %q", profile)
	}
	if g.err != nil {
		return g.err
	}
	return g.w.Flush()
}

// WriteHealthyMix writes at least size bytes of healthy logs of every
// profile in turn, each a job of a few thousand steps.
func WriteHealthyMix(w io.Writer, size int64, seed int64) error {
	cw := &countWriter{w: w}
	for i := 0; cw.n < size; i++ {
		p := HealthyProfiles[i%len(HealthyProfiles)]
		if err := WriteHealthyLog(cw, p, 3000, seed+int64(i)); err != nil {
			return err
		}
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type healthyGen struct {
	w      *bufio.Writer
	rng    *rand.Rand
	now    time.Time
	stamps bool
	job    string
	err    error
	// partial holds carriage-return redraws not yet ended by a newline.
	partial strings.Builder
}

// tick advances the clock by about d.
func (g *healthyGen) tick(d time.Duration) {
	g.now = g.now.Add(d/2 + time.Duration(g.rng.Int63n(int64(d)+1)))
}

func (g *healthyGen) stamp() string {
	if !g.stamps {
		return ""
	}
	return g.now.Format(time.RFC3339Nano) + " "
}

// line writes one line, ending any pending progress-bar redraws first.
func (g *healthyGen) line(format string, args ...any) {
	if g.err != nil {
		return
	}
	g.flushBar()
	_, g.err = fmt.Fprintf(g.w, g.stamp()+format+"\n", args...)
}

// bar adds one progress-bar redraw: tqdm writes "\r" and the new bar
// without a newline, so redraws pile up on one physical line.
func (g *healthyGen) bar(format string, args ...any) {
	if g.partial.Len() == 0 {
		g.partial.WriteString(g.stamp())
	}
	g.partial.WriteByte('\r')
	fmt.Fprintf(&g.partial, format, args...)
	if g.partial.Len() > 16<<10 {
		g.flushBar()
	}
}

func (g *healthyGen) flushBar() {
	if g.partial.Len() == 0 || g.err != nil {
		return
	}
	g.partial.WriteByte('\n')
	_, g.err = g.w.WriteString(g.partial.String())
	g.partial.Reset()
}

func (g *healthyGen) host(rank int) string {
	if rank < 8 {
		return g.job + "-master-0"
	}
	return fmt.Sprintf("%s-worker-%d", g.job, rank/8-1)
}

// torchrunStart is what torchrun and NCCL print before the first step.
func (g *healthyGen) torchrunStart() {
	pid := 100 + g.rng.Intn(400)
	g.line("+ torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=%s:29500 train.py --config configs/%s.yaml", g.host(0), g.job)
	hdr := fmt.Sprintf("W%s %d torch/distributed/run.py:793]", g.now.Format("0102 15:04:05.000000"), pid)
	g.line("%s ", hdr)
	g.line("%s *****************************************", hdr)
	g.line("%s Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ", hdr)
	g.line("%s *****************************************", hdr)
	g.tick(2 * time.Second)
	for i := 0; i < 3; i++ {
		g.line("[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:29500 (errno: 99 - Cannot assign requested address).", g.host(0))
		g.tick(time.Second)
	}
	api := fmt.Sprintf("I%s %d torch/distributed/elastic/agent/server/api.py", g.now.Format("0102 15:04:05.000000"), pid)
	g.line("%s:873] [default] Starting worker group", api)
	g.line("%s:708] [default] Rendezvous complete for workers. Result:", api)
	for _, kv := range []string{"restart_count=0", "master_addr=" + g.host(0), "master_port=29500", "group_rank=0", "group_world_size=2",
		"local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]", "role_ranks=[0, 1, 2, 3, 4, 5, 6, 7]", "global_ranks=[0, 1, 2, 3, 4, 5, 6, 7]",
		"role_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]", "global_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]"} {
		g.line("  %s", kv)
	}
	g.line("%s:716] [default] Starting worker group", api)
	g.line("I%s %d torch/distributed/elastic/multiprocessing/api.py:315] Setting worker0 reply file to: /tmp/torchelastic_x1y2/none_abc/attempt_0/0/error.json", g.now.Format("0102 15:04:05.000000"), pid)
	g.tick(5 * time.Second)
	for r := 0; r < 8; r++ {
		g.nccl(r, pid+10+r)
	}
}

// nccl is NCCL's start-up for one rank (NCCL_DEBUG=INFO).
func (g *healthyGen) nccl(rank, pid int) {
	tid := pid + 60 + g.rng.Intn(30)
	p := fmt.Sprintf("%s:%d:%d [%d] NCCL INFO", g.host(rank), pid, pid, rank)
	q := fmt.Sprintf("%s:%d:%d [%d] NCCL INFO", g.host(rank), pid, tid, rank)
	ip := fmt.Sprintf("10.244.%d.%d", g.rng.Intn(200), 2+g.rng.Intn(250))
	g.line("%s Bootstrap : Using eth0:%s<0>", p, ip)
	if g.rng.Intn(2) == 0 {
		g.line("%s NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.", p)
	} else {
		g.line("%s NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation", p)
	}
	g.line("%s cudaDriverVersion 12040", p)
	if rank == 0 {
		g.line("NCCL version 2.21.5+cuda12.4")
	}
	ib := g.rng.Intn(2) == 0
	if ib {
		g.line("%s NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:%s<0>", q, ip)
		g.line("%s Using non-device net plugin version 0", q)
		g.line("%s Using network IB", q)
	} else {
		g.line("%s NET/IB : No device found.", q)
		g.line("%s NET/Socket : Using [0]eth0:%s<0>", q, ip)
		g.line("%s Using network Socket", q)
	}
	g.line("%s ncclCommInitRank comm 0x55d5c8e0%02x rank %d nranks 16 cudaDev %d nvmlDev %d busId %d000 commId 0x8d1f2a3b4c5d6e7f - Init START", q, rank, rank, rank, rank, 18+rank*16)
	g.line("%s Setting affinity for GPU %d to ffff,ffffffff", q, rank)
	g.line("%s comm 0x55d5c8e0%02x rank %d nRanks 16 nNodes 2 localRanks 8 localRank %d MNNVL 0", q, rank, rank, rank)
	for c := 0; c < 4; c++ {
		g.line("%s Channel %02d/04 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15", q, c)
	}
	g.line("%s Trees [0] %d/-1/-1->%d->-1 [1] %d/-1/-1->%d->8", q, (rank+1)%8, rank, (rank+1)%8, rank)
	g.line("%s P2P Chunksize set to 131072", q)
	for c := 0; c < 4; c++ {
		g.line("%s Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read", q, c, rank, rank, (rank+1)%8, (rank+1)%8)
	}
	g.line("%s Connected all rings", q)
	g.line("%s Connected all trees", q)
	g.line("%s threadThresholds 8/8/64 | 128/8/64 | 512 | 512", q)
	g.line("%s 4 coll channels, 0 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer", q)
	g.line("%s TUNER/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-tuner.so", q)
	g.line("%s TUNER/Plugin: Using internal tuner plugin.", q)
	g.line("%s ncclCommInitRank comm 0x55d5c8e0%02x rank %d nranks 16 cudaDev %d nvmlDev %d busId %d000 commId 0x8d1f2a3b4c5d6e7f - Init COMPLETE", q, rank, rank, rank, rank, 18+rank*16)
	g.tick(20 * time.Millisecond)
}

// warnings are what healthy runs warn about, once or now and then.
func (g *healthyGen) warning() {
	switch g.rng.Intn(4) {
	case 0:
		g.line("/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.")
		g.line("  warnings.warn(")
	case 1:
		g.line("/usr/local/lib/python3.10/dist-packages/torch/_dynamo/eval_frame.py:600: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.")
		g.line("  return fn(*args, **kwargs)")
	case 2:
		g.line("/usr/local/lib/python3.10/dist-packages/torch/optim/lr_scheduler.py:143: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule.")
		g.line("  warnings.warn(\"Detected call of `lr_scheduler.step()` before `optimizer.step()`. \"")
	case 3:
		g.line("[rank%d]:[W314 %s ProcessGroupNCCL.cpp:4115] [PG 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id.", g.rng.Intn(8), g.now.Format("15:04:05.000000000"), g.rng.Intn(8), g.rng.Intn(8))
	}
}

func (g *healthyGen) loss(step, steps int) float64 {
	return 1.2 + 8*math.Exp(-4*float64(step)/float64(steps)) + g.rng.Float64()*0.2
}

func (g *healthyGen) megatron(steps int) {
	g.line("using world size: 16, data-parallel size: 2, context-parallel size: 1, tensor-model-parallel size: 8, pipeline-model-parallel size: 1")
	g.line("------------------------ arguments ------------------------")
	for _, a := range []string{"accumulate_allreduce_grads_in_fp32 .............. False", "adam_beta1 ...................................... 0.9",
		"bf16 ............................................ True", "clip_grad ....................................... 1.0",
		"global_batch_size ............................... 128", "log_interval .................................... 1",
		"loss_scale ...................................... None", "lr .............................................. 0.00015",
		"micro_batch_size ................................ 1", "seq_length ...................................... 4096",
		"train_iters ..................................... 500000", "use_flash_attn .................................. True"} {
		g.line("  %s", a)
	}
	g.line("-------------------- end of arguments ---------------------")
	g.line("> building GPT2BPETokenizer tokenizer ...")
	g.line(" > padded vocab (size: 50257) with 943 dummy tokens (new size: 51200)")
	g.line("> initializing torch distributed ...")
	g.line("> initialized tensor model parallel with size 8")
	g.line("> compiling dataset index builder ...")
	g.line(">>> done with dataset index builder. Compilation time: 0.054 seconds")
	g.line("[after model, optimizer, and learning rate scheduler are built] datetime: %s ", g.now.Format("2006-01-02 15:04:05"))
	g.line("training ...")
	for it := 1; it <= steps; it++ {
		g.tick(900 * time.Millisecond)
		ms := 880 + g.rng.Float64()*60
		g.line(" [%s] iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size:   128 | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |",
			g.now.Format("2006-01-02 15:04:05"), it, it*128, ms, 180*900/ms, 1.5e-4*math.Min(1, float64(it)/2000), g.loss(it, steps), 0.2+g.rng.Float64())
		if it == 1 || it%100 == 0 {
			g.line("[Rank 0] (after %d iterations) memory (MB) | allocated: 21344.5 | max allocated: 41233.2 | reserved: 45012.0 | max reserved: 45012.0", it)
			g.line("(min, max) time across ranks (ms):")
			g.line("    forward-backward ...............................: (%.2f, %.2f)", ms-30, ms-28)
			g.line("    optimizer ......................................: (25.11, 25.40)")
		}
		if it%1000 == 0 {
			g.line("saving checkpoint at iteration %7d to /checkpoints/%s in torch_dist format", it, g.job)
			g.line("  successfully saved checkpoint from iteration %7d to /checkpoints/%s [ t 1/8, p 1/1 ]", it, g.job)
		}
		if it%250 == 0 {
			g.warning()
		}
	}
}

// hfTrainer prints the Trainer's output; prefix is put before every
// line a worker prints (Ray Train's worker prefix).
func (g *healthyGen) hfTrainer(steps int, prefix string) {
	l := func(format string, args ...any) { g.line(prefix+format, args...) }
	l("loading configuration file config.json from cache at /root/.cache/huggingface/hub/models--meta-llama--Llama-2-13b-hf/snapshots/abc123/config.json")
	l("loading weights file model.safetensors from cache at /root/.cache/huggingface/hub/models--meta-llama--Llama-2-13b-hf/snapshots/abc123/model.safetensors.index.json")
	for shard := 1; shard <= 3; shard++ {
		for pct := 0; pct <= 100; pct += 34 {
			g.bar("Loading checkpoint shards: %3d%%|%-10s| %d/3 [00:%02d<00:%02d,  4.12s/it]", pct, strings.Repeat("█", pct/10), shard, shard*4, 12-shard*4)
		}
	}
	for _, m := range []string{"Map (num_proc=16)", "Running tokenizer on dataset (num_proc=16)", "Grouping texts in chunks of 4096 (num_proc=16)"} {
		total := 184211
		for k := 0; k <= 40; k++ {
			n := total * k / 40
			g.bar("%s: %3d%%|%-10s| %d/%d [00:%02d<00:%02d, %.2f examples/s]", m, 100*k/40, strings.Repeat("█", k/4), n, total, k/5, (40-k)/5, 30000+g.rng.Float64()*2000)
		}
	}
	l("***** Running training *****")
	l("  Num examples = 1,843,200")
	l("  Num Epochs = 1")
	l("  Instantaneous batch size per device = 4")
	l("  Total train batch size (w. parallel, distributed & accumulation) = 128")
	l("  Gradient Accumulation steps = 2")
	l("  Total optimization steps = %d", steps)
	l("  Number of trainable parameters = 13,015,864,320")
	start := g.now
	for s := 0; s <= steps; s++ {
		g.tick(3100 * time.Millisecond)
		el := g.now.Sub(start)
		g.bar("%s%3d%%|%-10s| %d/%d [%s<%s, %5.2fs/it]", prefix, 100*s/steps, strings.Repeat("█", 10*s/steps), s, steps, clock(el), clock(el*time.Duration(steps-s)/time.Duration(s+1)), 3.0+g.rng.Float64()*0.3)
		if s > 0 && s%10 == 0 {
			l("{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}", g.loss(s, steps), 0.5+g.rng.Float64(), 2e-5*(1-float64(s)/float64(steps)), float64(s)/float64(steps))
		}
		if s > 0 && s%500 == 0 {
			for e := 0; e <= 50; e += 2 {
				g.bar("%s%3d%%|%-10s| %d/50 [00:%02d<00:%02d, %.2fit/s]", prefix, 2*e, strings.Repeat("█", e/5), e, e/10, (50-e)/10, 9+g.rng.Float64())
			}
			l("{'eval_loss': %.4f, 'eval_runtime': 12.31, 'eval_samples_per_second': 81.23, 'eval_steps_per_second': 2.54, 'epoch': %.2f}", g.loss(s, steps)+0.1, float64(s)/float64(steps))
			l("Saving model checkpoint to /output/checkpoint-%d", s)
			l("Configuration saved in /output/checkpoint-%d/config.json", s)
			l("Model weights saved in /output/checkpoint-%d/model.safetensors", s)
		}
		if s > 0 && s%400 == 0 {
			g.warning()
		}
	}
	l("")
	l("")
	l("Training completed. Do not forget to share your model on huggingface.co/models =)")
	l("")
	l("{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 1.0}", g.now.Sub(start).Seconds(), 41.3, 0.323, 1.9)
}

func clock(d time.Duration) string {
	s := int(d.Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func (g *healthyGen) deepspeed(steps int) {
	ds := func(src, format string, args ...any) {
		g.line("[%s] [INFO] [%s] "+format, append([]any{g.now.Format("2006-01-02 15:04:05,000"), src}, args...)...)
	}
	ds("real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")
	ds("comm.py:652:init_distributed", "cdb=None")
	ds("comm.py:683:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl")
	ds("logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown")
	ds("logging.py:96:log_dist", "[Rank 0] Creating fp16 optimizer with dynamic loss scale")
	ds("config.py:997:print", "DeepSpeedEngine configuration:")
	for _, kv := range []string{"fp16_enabled ................. True", "loss_scale ................... 0", "dynamic_loss_scale_args ...... {'init_scale': 65536, 'scale_window': 1000, 'delayed_shift': 2, 'consecutive_hysteresis': False, 'min_scale': 1}",
		"gradient_accumulation_steps .. 2", "steps_per_print .............. 10", "train_batch_size ............. 128", "zero_optimization_stage ...... 2"} {
		ds("config.py:1001:print", "  %s", kv)
	}
	scale := 65536
	for s := 1; s <= steps; s++ {
		g.tick(1200 * time.Millisecond)
		// Dynamic loss scaling: overflows at the start, then one now and
		// then when the scale has grown again.
		if s <= 6 || s%1000 == 500 {
			ds("loss_scaler.py:183:update_scale", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d", scale, scale/2)
			scale /= 2
			continue
		}
		if s%10 == 0 {
			ds("logging.py:96:log_dist", "[Rank 0] step=%d, skipped=%d, lr=[%.8e, %.8e], mom=[(0.9, 0.95), (0.9, 0.95)]", s, min(s, 6), 2e-5, 2e-5)
			ds("timer.py:260:stop", "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=10.2GB, MaxMemAllocated=20.1GB", 2*s, s, 45+g.rng.Float64(), 44+2*g.rng.Float64())
			g.line("epoch 0 | step %d | loss %.4f | lr %.3e | tokens/sec %.0f", s, g.loss(s, steps), 2e-5, 2.1e5+g.rng.Float64()*1e4)
		}
		if s%1000 == 0 {
			ds("logging.py:96:log_dist", "[Rank 0] Saving model checkpoint: /checkpoints/global_step%d/mp_rank_00_model_states.pt", s)
			ds("torch_checkpoint_engine.py:21:save", "[Torch] Saving /checkpoints/global_step%d/mp_rank_00_model_states.pt...", s)
			ds("torch_checkpoint_engine.py:23:save", "[Torch] Saved /checkpoints/global_step%d/mp_rank_00_model_states.pt.", s)
		}
		if s%300 == 0 {
			g.warning()
		}
	}
	// Apex-style scaler messages, as older stacks print them.
	g.line("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0")
}

func (g *healthyGen) lightning(steps int) {
	g.line("Using 16bit Automatic Mixed Precision (AMP)")
	g.line("GPU available: True (cuda), used: True")
	g.line("TPU available: False, using: 0 TPU cores")
	g.line("HPU available: False, using: 0 HPUs")
	g.line("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/16")
	g.line("----------------------------------------------------------------------------------------------------")
	g.line("distributed_backend=nccl")
	g.line("All distributed processes registered. Starting with 16 processes")
	g.line("----------------------------------------------------------------------------------------------------")
	g.line("LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3,4,5,6,7]")
	g.line("")
	g.line("  | Name  | Type             | Params | Mode ")
	g.line("---------------------------------------------------")
	g.line("0 | model | LlamaForCausalLM | 6.7 B  | train")
	g.line("---------------------------------------------------")
	g.line("6.7 B     Trainable params")
	g.line("0         Non-trainable params")
	for i := 0; i <= 2; i++ {
		g.bar("Sanity Checking DataLoader 0: %3d%%|%-10s| %d/2 [00:0%d<00:00,  3.21it/s]", 50*i, strings.Repeat("█", 5*i), i, i)
	}
	per := 1000
	for s := 0; s < steps; s++ {
		g.tick(700 * time.Millisecond)
		e, b := s/per, s%per
		g.bar("Epoch %d:  %2d%%|%-10s| %d/%d [%s<%s,  %.2fit/s, v_num=0, train_loss=%.3f]", e, 100*b/per, strings.Repeat("█", 10*b/per), b, per, clock(time.Duration(b)*700*time.Millisecond), clock(time.Duration(per-b)*700*time.Millisecond), 1.40+g.rng.Float64()*0.1, g.loss(s, steps))
		if b == per-1 {
			for v := 0; v <= 20; v++ {
				g.bar("Validation DataLoader 0: %3d%%|%-10s| %d/20 [00:%02d<00:%02d,  7.12it/s]", 5*v, strings.Repeat("█", v/2), v, v/7, (20-v)/7)
			}
			g.line("Epoch %d, global step %d: 'val_loss' reached %.5f (best %.5f), saving model to '/output/checkpoints/epoch=%d-step=%d.ckpt' as top 1", e, s+1, g.loss(s, steps), g.loss(s, steps), e, s+1)
		}
		if s%500 == 499 {
			g.warning()
		}
	}
	g.line("`Trainer.fit` stopped: `max_steps=%d` reached.", steps)
}

func (g *healthyGen) plain(steps int) {
	log := func(level, format string, args ...any) {
		g.line("%s - train - %s - "+format, append([]any{g.now.Format("2006-01-02 15:04:05,000"), level}, args...)...)
	}
	log("INFO", "world_size=16 rank=0 local_rank=0 device=cuda:0")
	log("INFO", "loaded 1843200 samples from /data/train.jsonl in 12.3s")
	log("WARNING", "gradient checkpointing is on: expect ~30%% lower throughput")
	for s := 1; s <= steps; s++ {
		g.tick(357 * time.Millisecond)
		log("INFO", "step=%d loss=%.4f lr=1.500e-04 grad_norm=%.3f step_time=%.3fs tokens_per_sec=%d", s, g.loss(s, steps), 0.2+g.rng.Float64()/3, 0.35+g.rng.Float64()/100, 180000+g.rng.Intn(8000))
		if s%1000 == 0 {
			log("INFO", "saved checkpoint to /ckpt/step_%d.pt (2.1 GB) in 8.4s", s)
			log("INFO", "eval: val_loss=%.4f ppl=%.2f", g.loss(s, steps)+0.1, math.Exp(g.loss(s, steps)))
		}
		if s%600 == 0 {
			g.warning()
		}
	}
}

func (g *healthyGen) rayTrain(steps int) {
	g.line("2026-03-14 09:00:01,123\tINFO worker.py:1749 -- Connecting to existing Ray cluster at address: 10.244.1.7:6379...")
	g.line("2026-03-14 09:00:01,456\tINFO worker.py:1927 -- Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32mhttp://10.244.1.7:8265 \x1b[39m\x1b[22m")
	g.line("\x1b[36m(TrainTrainable pid=2201)\x1b[0m Trainable.setup took 12.301 seconds. If your trainable is slow to initialize, consider setting reuse_actors=True to reduce actor creation overheads.")
	for r := 0; r < 4; r++ {
		g.line("\x1b[36m(RayTrainWorker pid=%d, ip=10.244.%d.7)\x1b[0m Setting up process group for: env:// [rank=%d, world_size=4]", 2300+r, r, r)
	}
	g.line("\x1b[36m(TorchTrainer pid=2201)\x1b[0m Started distributed worker processes: ")
	g.hfTrainer(steps, "\x1b[36m(RayTrainWorker pid=2300, ip=10.244.0.7)\x1b[0m ")
	for it := 1; it <= 3; it++ {
		g.line("\x1b[36m(RayTrainWorker pid=2300, ip=10.244.0.7)\x1b[0m Checkpoint successfully created at: Checkpoint(filesystem=local, path=/mnt/results/TorchTrainer_2026-03-14/checkpoint_%06d)", it)
		g.line("Training finished iteration %d at %s. Total running time: %dmin %ds", it, g.now.Format("2006-01-02 15:04:05"), 12*it, 7)
		g.line("╭──────────────────────────────────────╮")
		g.line("│ Training result                      │")
		g.line("├──────────────────────────────────────┤")
		g.line("│ checkpoint_dir_name   checkpoint_%06d │", it)
		g.line("│ time_this_iter_s              721.20 │")
		g.line("│ time_total_s                 2163.61 │")
		g.line("│ training_iteration                 %d │", it)
		g.line("│ epoch                              %d │", it)
		g.line("│ loss                          %.4f │", g.loss(it*steps/3, steps))
		g.line("╰──────────────────────────────────────╯")
	}
}
