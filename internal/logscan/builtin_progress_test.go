package logscan_test

import (
	"math"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/internal/logscan"
)

// nan stands for a non-finite value in the cases below.
var nan = math.NaN()

// TestBuiltinProgressWordings reads the progress lines of the common
// trainers with the built-in progress patterns: the step, and every
// metric and checkpoint save they must yield (and no other metric).
func TestBuiltinProgressWordings(t *testing.T) {
	s := builtinScanner(t)
	tests := []struct {
		name    string
		line    string
		step    int64 // 0: none
		metrics map[string]float64
		saved   int64 // 0: none
	}{
		{
			name:    "hf trainer dict",
			line:    "{'loss': 1.7018, 'grad_norm': nan, 'learning_rate': 1.3513513513513515e-06, 'epoch': 0.01}",
			metrics: map[string]float64{"loss": 1.7018, "grad_norm": nan},
		},
		{
			name:    "hf trainer eval dict is not the training loss",
			line:    "{'eval_loss': nan, 'eval_runtime': 12.31, 'eval_samples_per_second': 81.23, 'epoch': 1.0}",
			metrics: map[string]float64{},
		},
		{
			name: "megatron-lm",
			line: "iteration     3384/    8000 | consumed samples:       216576 | elapsed time per iteration (ms): 7845.5 | learning rate: 6.678E-06 | global batch size:    64 | lm loss: 7.072597E-01 | loss scale: 1.0 | grad norm: 0.741 | number of skipped iterations:   0 | number of nan iterations:   0 |",
			step: 3384,
			metrics: map[string]float64{
				"loss": 0.7072597, "loss_scale": 1, "grad_norm": 0.741, "skipped_iters": 0, "nan_iters": 0,
			},
		},
		{
			name: "megatron-lm diverged",
			line: " [2026-05-18 11:34:48] iteration     6150/   50000 | consumed samples:      3148800 | elapsed time per iteration (ms): 2867.9 | throughput per GPU (TFLOP/s/GPU): 397.8 | learning rate: 6.000000E-04 | global batch size:   512 | lm loss: NAN | loss scale: 1.0 | grad norm: nan | number of skipped iterations:   0 | number of nan iterations:  10 |",
			step: 6150,
			metrics: map[string]float64{
				"loss": nan, "loss_scale": 1, "grad_norm": nan, "skipped_iters": 0, "nan_iters": 10,
			},
		},
		{
			// bigscience-workshop/Megatron-DeepSpeed#396: no lm loss, fields
			// between the grad norm and the counters.
			name: "megatron-deepspeed",
			line: " iteration     5426/  250000 | consumed samples:        43408 | consumed tokens:     88899584 | elapsed time per iteration (ms): 4247.9 | learning rate: 2.999E-04 | global batch size:     8 | loss scale: 1.0 | grad norm: nan | actual seqlen:  2048 | number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: 1.883 | TFLOPs: 78.36 |",
			step: 5426,
			metrics: map[string]float64{
				"loss_scale": 1, "grad_norm": nan, "skipped_iters": 0, "nan_iters": 0,
			},
		},
		{
			// NVIDIA/Megatron-LM#60: the fp16 scaler skipping while it
			// comes down from its initial scale.
			name:    "megatron-lm fp16 warm-up",
			line:    " iteration        5/  120000 | elapsed time per iteration (ms): 16491.5 | learning rate: 0.000E+00 | loss scale: 268435456.0 | number of skipped iterations:   5 | number of nan iterations:   0 |",
			step:    5,
			metrics: map[string]float64{"loss_scale": 268435456, "skipped_iters": 5, "nan_iters": 0},
		},
		{
			name:    "nemo bar",
			line:    "Epoch 0: : 12%|█▏| 1200/10000 [20:00<2:26:40, reduced_train_loss=nan, global_step=1199.0, consumed_samples=614400.0]",
			step:    1199,
			metrics: map[string]float64{"loss": nan},
		},
		{
			name:    "lightning bar",
			line:    "Epoch 3:  45%|████▌     | 450/1000 [05:00<06:06,  1.50it/s, v_num=0, train_loss=2.310]",
			step:    450,
			metrics: map[string]float64{"loss": 2.31},
		},
		{
			name:    "lightning tensor",
			line:    "Epoch 2 | step 300 | loss=tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)",
			step:    300,
			metrics: map[string]float64{"loss": nan},
		},
		{
			name:    "plain loop",
			line:    "2026-03-09 01:02:52,989 - cpt - INFO - step 10 | loss 3.0903 | lr 2.000e-04 | grad_norm 0.825 | loss_scale 65536.0 | tokens/s 121927",
			step:    10,
			metrics: map[string]float64{"loss": 3.0903, "grad_norm": 0.825, "loss_scale": 65536},
		},
		{
			name:    "plain loop diverged",
			line:    "epoch: 3451 loss: nan",
			metrics: map[string]float64{"loss": nan},
		},
		{
			name:    "mmengine",
			line:    "10/30 22:19:28 - mmengine - INFO - Epoch(train) [1][230/735]  lr: 1.9828e-04  eta: 2:45:16  time: 2.8833  data_time: 0.0040  memory: 10762  loss: 2.7682  grad_norm: 2.5099",
			metrics: map[string]float64{"loss": 2.7682, "grad_norm": 2.5099},
		},
		{
			name:    "deepspeed overflow",
			line:    "[2024-09-11 17:52:18,030] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4294967296, reducing to 2147483648",
			metrics: map[string]float64{"loss_scale": 4294967296},
		},
		{
			name:    "apex overflow",
			line:    "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
			metrics: map[string]float64{},
		},
		{
			name:    "detectron2",
			line:    "[11/01 20:14:15 d2.utils.events]:  eta: 5:41:49  iter: 379  total_loss: 1.707  loss_cls: 1.184  loss_box_reg: 0.3921  lr: 0.00037893",
			step:    379,
			metrics: map[string]float64{"loss": 1.707},
		},
		{
			name:    "hf save",
			line:    "Saving model checkpoint to /output/checkpoint-500",
			metrics: map[string]float64{},
			saved:   500,
		},
		{
			// huggingface/transformers#27820: the Trainer writes into a
			// temporary folder, DeepSpeed saves its states inside.
			name:    "hf temporary save",
			line:    "Saving model checkpoint to /scratch/sanitycheck-20231211/tmp-checkpoint-10",
			metrics: map[string]float64{},
			saved:   10,
		},
		{
			name:    "deepspeed save",
			line:    "[2023-12-12 06:20:12,266] [INFO] [logging.py:96:log_dist] [Rank 0] Saving model checkpoint: /scratch/sanitycheck-20231211/tmp-checkpoint-10/global_step10/zero_pp_rank_0_mp_rank_00_model_states.pt",
			metrics: map[string]float64{},
			saved:   10,
		},
		{
			name:    "deepspeed saved",
			line:    "[2023-12-12 06:20:12,268] [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved /ckpt/global_step500/zero_pp_rank_0_mp_rank_00_model_states.pt.",
			metrics: map[string]float64{},
			saved:   500,
		},
		{
			name:    "megatron saved",
			line:    "  successfully saved checkpoint from iteration    5000 to /checkpoints/gpt [ t 1/8, p 1/1 ]",
			metrics: map[string]float64{},
			saved:   5000,
		},
		{
			name:    "megatron saved, older wording",
			line:    "  successfully saved checkpoint at iteration    2000 to /ckpt",
			metrics: map[string]float64{},
			saved:   2000,
		},
		{
			name:    "megatron save started is not a save",
			line:    "saving checkpoint at iteration    5000 to /checkpoints/gpt in torch_dist format",
			metrics: map[string]float64{},
		},
		{
			name:    "lightning save",
			line:    "Epoch 3, global step 4000: 'val_loss' reached 0.41234 (best 0.41234), saving model to '/output/checkpoints/epoch=3-step=4000.ckpt' as top 1",
			step:    4000,
			metrics: map[string]float64{},
			saved:   4000,
		},
		{
			name:    "lightning not saved",
			line:    "Epoch 4, global step 5000: 'val_loss' was not in top 1",
			step:    5000,
			metrics: map[string]float64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf, err := s.Scan(strings.NewReader(tt.line+"\n"), logscan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := lf.Progress
			if p == nil {
				p = &evidence.LogProgress{}
			}
			if got := p.LastStep; (got == nil) != (tt.step == 0) || got != nil && *got != tt.step {
				t.Errorf("step = %v, want %d", valueOf(got), tt.step)
			}
			if got := p.LastSavedStep; (got == nil) != (tt.saved == 0) || got != nil && *got != tt.saved {
				t.Errorf("saved step = %v, want %d", valueOf(got), tt.saved)
			}
			var names []string
			for name, m := range p.Metrics {
				names = append(names, name)
				want, ok := tt.metrics[name]
				switch {
				case !ok:
				case math.IsNaN(want) && (m.Last.Value != nil || m.NonFiniteRun != 1):
					t.Errorf("%s = %v, want nan", name, valueOf(m.Last.Value))
				case !math.IsNaN(want) && (m.Last.Value == nil || *m.Last.Value != want):
					t.Errorf("%s = %v, want %v", name, valueOf(m.Last.Value), want)
				}
			}
			var want []string
			for name := range tt.metrics {
				want = append(want, name)
			}
			sort.Strings(names)
			sort.Strings(want)
			if !slices.Equal(names, want) {
				t.Errorf("metrics %v, want %v", names, want)
			}
		})
	}
}

func valueOf[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestBuiltinProgressBounded keeps ".*" out of the built-in progress
// patterns: they run on every step line, and an unbounded any-character
// run between two fields makes the regexp engine walk the rest of the
// line (Megatron's report lines are some 400 bytes) on each of them.
func TestBuiltinProgressBounded(t *testing.T) {
	e := builtinRules(t)
	for _, p := range e.ProgressPatterns {
		id, _ := p["id"].(string)
		re, err := syntax.Parse(p["pattern"].(string), syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if anyRun(re) {
			t.Errorf("%s: %s has an unbounded run of any character", id, p["pattern"])
		}
	}
}

func anyRun(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus:
		if op := re.Sub[0].Op; op == syntax.OpAnyChar || op == syntax.OpAnyCharNotNL {
			return true
		}
	case syntax.OpRepeat:
		if op := re.Sub[0].Op; re.Max < 0 && (op == syntax.OpAnyChar || op == syntax.OpAnyCharNotNL) {
			return true
		}
	}
	return slices.ContainsFunc(re.Sub, anyRun)
}
