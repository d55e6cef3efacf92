package execout

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

// TestParseCheckpointsEvidence checks what the rules read from the older
// single-directory listings.
func TestParseCheckpointsEvidence(t *testing.T) {
	now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		file string
		now  time.Time
		want evidence.Checkpoints
	}{
		// step_1500.tmp is being written: neither a step nor the latest.
		{"checkpoints.txt", now, evidence.Checkpoints{Steps: []int64{100, 500, 1000}, LatestStep: i64(1000), LatestTime: "2026-03-14T09:00:00Z"}},
		{"checkpoints.txt", time.Time{}, evidence.Checkpoints{Steps: []int64{100, 500, 1000}, LatestStep: i64(1000)}},
		{"checkpoints-hf.txt", now, evidence.Checkpoints{Steps: []int64{500, 1000}, LatestStep: i64(1000), LatestTime: "2026-03-14T09:00:02Z"}},
		{"checkpoints-missing.txt", now, evidence.Checkpoints{Steps: []int64{}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseCheckpointsAt(open(t, tt.file), tt.now)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
	jan := time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)
	got, err := ParseCheckpointsAt(strings.NewReader("drwxr-xr-x 2 root root 4096 Dec 30 23:00 global_step42\n"), jan)
	if err != nil || got.LatestTime != "2026-12-30T23:00:00Z" {
		t.Errorf("year rollover: %+v %v", got, err)
	}
	if _, err := ParseCheckpoints(strings.NewReader("<html>oops</html>")); err == nil {
		t.Error("garbage accepted")
	}
}

func TestStepOf(t *testing.T) {
	for name, want := range map[string]int64{
		"step_100": 100, "global_step1000": 1000, "global_step_200": 200, "checkpoint-1000": 1000,
		"iter_0001000": 1000, "epoch=3-step=1200.ckpt": 1200, "checkpoint_000012": 12,
		"conformer-xl--val_wer=0.2800-epoch=1-step=8000-last.ckpt": 8000,
	} {
		if got, ok := stepOf(name); !ok || got != want {
			t.Errorf("stepOf(%q) = %d, %v", name, got, ok)
		}
	}
	for _, name := range []string{"latest", "runs", "zero_to_fp32.py", "trainer_state.json", "checkpoints"} {
		if got, ok := stepOf(name); ok {
			t.Errorf("stepOf(%q) = %d, want none", name, got)
		}
	}
}

// TestParseCheckpointListing runs real listings of the frameworks'
// checkpoint folders, in the formats of ls, gsutil and aws s3, and checks
// which checkpoint a restart would resume from and why the newer ones are
// not complete.
func TestParseCheckpointListing(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	type latest struct {
		name, path string
		step       int64
		time       string
	}
	tests := []struct {
		file       string
		saved      *int64
		dir        string
		latest     *latest
		steps      []int64
		incomplete map[string]string // name -> part of the reason
	}{
		{
			file: "deepspeed-full-iso.txt", dir: "/fsx/ckpt/gpt-neox-20b",
			latest:     &latest{"global_step2000", "/fsx/ckpt/gpt-neox-20b/global_step2000", 2000, "2026-03-14T10:46:20.118843902Z"},
			steps:      []int64{1000, 2000},
			incomplete: map[string]string{"global_step3000": "newer than latest (step 2000)"},
		},
		{
			// Without the tracker's content, its time tells.
			file:       "deepspeed-no-content.txt",
			latest:     &latest{"global_step2000", "", 2000, "2026-03-14T10:46:20.118843902Z"},
			steps:      []int64{1000, 2000},
			incomplete: map[string]string{"global_step3000": "modified after latest was written"},
		},
		{
			// head names the directory the listing does not.
			file: "megatron-ls-l.txt", dir: "/lustre/megatron/llama3-8b/checkpoints",
			latest:     &latest{"iter_0010000", "/lustre/megatron/llama3-8b/checkpoints/iter_0010000", 10000, "2026-03-14T08:25:00Z"},
			steps:      []int64{5000, 10000},
			incomplete: map[string]string{"iter_0015000": "newer than latest_checkpointed_iteration.txt (step 10000)"},
		},
		{
			// checkpoint-1500 lacks trainer_state.json, which the Trainer
			// writes last; tmp-checkpoint-2000 is the staging folder.
			file: "hf-markers.txt", dir: "/data/out/mistral-7b-sft",
			latest: &latest{"checkpoint-1000", "/data/out/mistral-7b-sft/checkpoint-1000", 1000, "2026-03-14T09:00:02Z"},
			steps:  []int64{500, 1000},
			incomplete: map[string]string{
				"checkpoint-1500":     "no trainer_state.json inside",
				"tmp-checkpoint-2000": "temporary name",
			},
		},
		{
			file: "lightning-nemo.txt", dir: "/results/conformer-xl/checkpoints",
			latest: &latest{"conformer-xl--val_wer=0.2800-epoch=1-step=8000-last.ckpt",
				"/results/conformer-xl/checkpoints/conformer-xl--val_wer=0.2800-epoch=1-step=8000-last.ckpt", 8000, "2026-03-05T20:03:36.006402517Z"},
			steps:      []int64{4000, 8000},
			incomplete: map[string]string{"conformer-xl--val_wer=0.2650-epoch=2-step=12000.ckpt": "-unfinished marker"},
		},
		{
			file:   "lightning-last-link.txt",
			latest: &latest{"epoch=3-step=4000.ckpt", "", 4000, "2026-03-14T08:23:00Z"},
			steps:  []int64{3000, 4000},
		},
		{
			// Orbax names folders by the bare step and commits with
			// commit_success.txt on object stores.
			file: "orbax-gsutil-recursive.txt", dir: "gs://tpu-ckpt-usc1/gemma-2b-pt/checkpoints",
			latest:     &latest{"2000", "gs://tpu-ckpt-usc1/gemma-2b-pt/checkpoints/2000", 2000, "2026-03-14T07:12:13Z"},
			steps:      []int64{1000, 2000},
			incomplete: map[string]string{"3000": "no commit_success.txt inside"},
		},
		{
			file: "gsutil-ls-l.txt", dir: "gs://llm-ckpts/runs/llama-13b",
			latest:     &latest{"step_4000", "gs://llm-ckpts/runs/llama-13b/step_4000", 4000, ""},
			steps:      []int64{2000, 4000},
			incomplete: map[string]string{"step_6000.tmp": "temporary name"},
		},
		{
			// A plain aws listing names neither the bucket nor latest's
			// content: every step counts.
			file:   "aws-s3-ls.txt",
			latest: &latest{"step_3000", "", 3000, ""},
			steps:  []int64{1000, 2000, 3000},
		},
		{
			// torch.distributed.checkpoint writes .metadata last.
			file: "aws-s3-ls-recursive.txt", dir: "s3://ml-ckpt-prod/dpo/qwen2-7b",
			latest:     &latest{"step_2000", "s3://ml-ckpt-prod/dpo/qwen2-7b/step_2000", 2000, "2026-03-14T09:03:53Z"},
			steps:      []int64{1000, 2000},
			incomplete: map[string]string{"step_3000": "no .metadata inside"},
		},
		{
			file: "verl-busybox.txt", dir: "/checkpoints/GRPO/verl-grpo-training-500",
			latest: &latest{"global_step_200", "/checkpoints/GRPO/verl-grpo-training-500/global_step_200", 200, "2026-03-14T09:41:00Z"},
			steps:  []int64{100, 200},
		},
		{
			// The logs say the last save finished at step 100.
			file: "verl-busybox.txt", saved: i64(100), dir: "/checkpoints/GRPO/verl-grpo-training-500",
			latest:     &latest{"global_step_100", "/checkpoints/GRPO/verl-grpo-training-500/global_step_100", 100, "2026-03-14T09:00:00Z"},
			steps:      []int64{100},
			incomplete: map[string]string{"global_step_200": "last save the logs report (step 100)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l, err := ParseCheckpointListing(open(t, filepath.Join("checkpoints", tt.file)), ListingOptions{Now: now, LastSavedStep: tt.saved})
			if err != nil {
				t.Fatal(err)
			}
			if l.Dir != tt.dir {
				t.Errorf("dir = %q, want %q", l.Dir, tt.dir)
			}
			if l.Latest == nil {
				t.Fatalf("no latest; entries %+v", l.Entries)
			}
			got := latest{l.Latest.Name, l.Latest.Path, l.Latest.Step, l.Latest.Time}
			if got != *tt.latest {
				t.Errorf("latest = %+v\nwant     %+v", got, *tt.latest)
			}
			if ev := l.Evidence(); !reflect.DeepEqual(ev.Steps, tt.steps) || *ev.LatestStep != tt.latest.step || ev.LatestTime != tt.latest.time {
				t.Errorf("evidence = %+v (latest %d), want steps %v", ev, *ev.LatestStep, tt.steps)
			}
			for _, e := range l.Entries {
				want, bad := tt.incomplete[e.Name]
				switch {
				case bad && e.Complete:
					t.Errorf("%s is complete, want incomplete (%s)", e.Name, want)
				case bad && !strings.Contains(e.Why, want):
					t.Errorf("%s: why = %q, want %q", e.Name, e.Why, want)
				case !bad && !e.Complete:
					t.Errorf("%s is incomplete (%s)", e.Name, e.Why)
				}
				delete(tt.incomplete, e.Name)
			}
			for name := range tt.incomplete {
				t.Errorf("%s not listed", name)
			}
		})
	}
}

func TestParseCheckpointListingPathIsData(t *testing.T) {
	// A folder name is never interpreted beyond its step.
	in := "/ckpt/{{.Name}} run:\ntotal 4\ndrwxr-xr-x 2 root root 4096 Mar 14 09:00 step_7 $(reboot)\n"
	l, err := ParseCheckpointListing(strings.NewReader(in), ListingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Latest == nil || l.Latest.Step != 7 || l.Latest.Name != "step_7 $(reboot)" {
		t.Fatalf("latest = %+v", l.Latest)
	}
}
