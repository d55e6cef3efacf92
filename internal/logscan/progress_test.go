package logscan

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

func TestProgressFormats(t *testing.T) {
	s := mustCompile(t, nil, testProgress())
	tests := []struct {
		file      string
		first     *int64
		last      *int64
		total     *int64
		steps     int
		loss      *float64
		nonFinite int
		tp        *evidence.Throughput
		lastTime  string
	}{
		{
			file: "plain.log", first: ptr[int64](100), last: ptr[int64](500), total: ptr[int64](1000), steps: 5,
			loss: ptr(1.9), nonFinite: 2,
			tp: &evidence.Throughput{Unit: UnitTokens, Samples: 1, Baseline: 15234.5, Recent: 15234.5, Last: 15234.5},
		},
		{
			// HF Trainer: steps from the tqdm bar, loss from the log
			// dicts, it/s inverted from s/it; the final summary adds one
			// samples/s value but it/s has more samples.
			file: "hf-trainer.log", first: ptr[int64](0), last: ptr[int64](4317), total: ptr[int64](4317), steps: 7,
			loss: ptr(1.1021),
			tp:   &evidence.Throughput{Unit: UnitIters, Samples: 6, Baseline: round(1 / 3.12), Recent: round(1 / 3.0), Last: round(1 / 3.12)},
		},
		{
			// Lightning: three carriage-return redraws on one line, then
			// a new epoch whose bar restarts and whose loss is nan.
			file: "lightning.log", first: ptr[int64](450), last: ptr[int64](20), total: ptr[int64](1000), steps: 4,
			loss: ptr(2.29), nonFinite: 1,
			tp: &evidence.Throughput{Unit: UnitIters, Samples: 4, Baseline: 1.44, Recent: 1.45, Last: 1.44},
		},
		{
			file: "deepspeed.log", first: ptr[int64](100), last: ptr[int64](300), steps: 5,
			tp:       &evidence.Throughput{Unit: UnitSamples, Samples: 3, Baseline: 46.12, Recent: 45.95, Last: 44.9, RecentSince: "2026-03-14T09:12:33.101Z"},
			lastTime: "2026-03-14T09:14:33.1Z",
		},
		{
			file: "megatron.log", first: ptr[int64](100), last: ptr[int64](300), total: ptr[int64](500000), steps: 3,
			loss:     ptr(5.901),
			tp:       &evidence.Throughput{Unit: UnitIters, Samples: 3, Baseline: round(1000 / 912.3), Recent: round(1000 / 912.3), Last: 1, RecentSince: "2026-03-14T09:12:33Z"},
			lastTime: "2026-03-14T09:15:35Z",
		},
		{
			file: "ray-train.log", first: ptr[int64](1), last: ptr[int64](12), steps: 4,
			loss: ptr(0.5123),
			tp:   &evidence.Throughput{Unit: UnitSamples, Samples: 1, Baseline: 311.5, Recent: 311.5, Last: 311.5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			lf := scanTestdata(t, s, "progress/"+tt.file)
			p := lf.Progress
			if p == nil {
				t.Fatal("no progress")
			}
			eqp := func(name string, got, want *int64) {
				if (got == nil) != (want == nil) || got != nil && *got != *want {
					t.Errorf("%s = %v, want %v", name, deref(got), deref(want))
				}
			}
			eqp("first", p.FirstStep, tt.first)
			eqp("last", p.LastStep, tt.last)
			eqp("total", p.TotalSteps, tt.total)
			if p.StepSamples != tt.steps {
				t.Errorf("step samples = %d, want %d", p.StepSamples, tt.steps)
			}
			if (p.LastLoss == nil) != (tt.loss == nil) || p.LastLoss != nil && *p.LastLoss != *tt.loss {
				t.Errorf("loss = %v, want %v", deref(p.LastLoss), deref(tt.loss))
			}
			if p.NonFiniteLoss != tt.nonFinite {
				t.Errorf("non-finite = %d, want %d", p.NonFiniteLoss, tt.nonFinite)
			}
			if (p.Throughput == nil) != (tt.tp == nil) || p.Throughput != nil && *p.Throughput != *tt.tp {
				t.Errorf("throughput = %+v, want %+v", deref(p.Throughput), deref(tt.tp))
			}
			if tt.lastTime != "" && p.LastStepTime != tt.lastTime {
				t.Errorf("last step time = %q, want %q", p.LastStepTime, tt.lastTime)
			}
		})
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestNormaliseUnit(t *testing.T) {
	tests := []struct {
		in   string
		unit string
		v    float64 // 2 in the written unit
	}{
		{"it/s", UnitIters, 2},
		{"s/it", UnitIters, 0.5},
		{"ms/it", UnitIters, 500},
		{"samples/sec", UnitSamples, 2},
		{"Samples/s", UnitSamples, 2},
		{"samples_per_second", UnitSamples, 2},
		{"examples/s", UnitSamples, 2},
		{"tokens/s", UnitTokens, 2},
		{"tok/s", UnitTokens, 2},
		{"tokens per second", UnitTokens, 2},
		{"img/s", UnitSamples, 2},
		{"steps/s", UnitIters, 2},
		{"s/step", UnitIters, 0.5},
	}
	for _, tt := range tests {
		c, ok := normaliseUnit(tt.in)
		if !ok || c.unit != tt.unit {
			t.Errorf("%q: %+v %v", tt.in, c, ok)
			continue
		}
		if v, _ := c.apply(2); math.Abs(v-tt.v) > 1e-9 {
			t.Errorf("%q: 2 -> %v, want %v", tt.in, v, tt.v)
		}
	}
	for _, bad := range []string{"", "GB", "TFLOP/s/GPU", "parsecs/s", "s"} {
		if c, ok := normaliseUnit(bad); ok {
			t.Errorf("%q accepted as %+v", bad, c)
		}
	}
}

func TestThroughputSummary(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   evidence.Throughput
	}{
		{"one", []float64{5}, evidence.Throughput{Samples: 1, Baseline: 5, Recent: 5, Last: 5}},
		{"short", []float64{1, 10, 10, 10}, evidence.Throughput{Samples: 4, Baseline: 1, Recent: 10, Last: 10}},
		{
			// 5 warm-up samples skipped (n/10 capped at 5); first third of
			// the rest is 100s; the last 20% collapsed to 40.
			name:   "slowdown",
			values: append(append(append([]float64{1, 1, 1, 1, 1}, repeat(100, 60)...), repeat(90, 20)...), repeat(40, 20)...),
			want:   evidence.Throughput{Samples: 105, Baseline: 100, Recent: 40, Last: 40},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &series{unit: UnitIters}
			for i, v := range tt.values {
				s.add(v, int64(i+1)*1e9)
			}
			got := s.summary()
			tt.want.Unit = UnitIters
			if tt.want.Samples >= 3 {
				r := max(3, int(math.Ceil(0.2*float64(len(tt.values)))))
				tt.want.RecentSince = formatTime(timeAt(int64(len(tt.values)-r+1) * 1e9))
			} else {
				tt.want.RecentSince = formatTime(timeAt(1e9))
			}
			if *got != tt.want {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestSeriesBounded checks that a very long series keeps bounded memory
// and still summarises the run uniformly.
func TestSeriesBounded(t *testing.T) {
	s := &series{unit: UnitSamples}
	const n = 1_000_000
	for i := 0; i < n; i++ {
		v := 100.0
		if i >= n*8/10 {
			v = 50
		}
		s.add(v, 0)
	}
	if len(s.pts) >= maxSeriesPoints {
		t.Fatalf("series holds %d points", len(s.pts))
	}
	got := s.summary()
	if got.Samples != n || got.Baseline != 100 || got.Recent != 50 || got.Last != 50 {
		t.Errorf("summary = %+v", got)
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestJobProgress(t *testing.T) {
	s := mustCompile(t, nil, testProgress())
	log := func(text, file string) evidence.LogFile {
		lf := scanString(t, s, text, Options{})
		lf.File = file
		return lf
	}
	a := log("2026-03-14T09:00:00Z step 100\n2026-03-14T09:10:00Z step 200 loss 1.5\n", "logs/w0/pytorch.log")
	b := log("2026-03-14T09:20:00Z step 150\n", "logs/w1/pytorch.log")
	c := log(strings.Repeat("samples/sec=10.0\n", 5), "logs/w1/pytorch.previous.log")
	pods := []evidence.Pod{
		{Name: "w0", Containers: []evidence.Container{{Logs: []evidence.LogFile{a}}}},
		{Name: "w1", Containers: []evidence.Container{{Logs: []evidence.LogFile{b, c}}},
			Exec: &evidence.ExecOutputs{Checkpoints: &evidence.Checkpoints{File: "exec/w1/checkpoints.txt", Steps: []int64{100}, LatestStep: ptr[int64](100)}}},
	}
	p := JobProgress(pods)
	if !p.Known || *p.LastStep != 200 || p.Source != "logs/w0/pytorch.log" || p.LastStepTime != "2026-03-14T09:10:00Z" {
		t.Errorf("progress = %+v", p)
	}
	if p.LastLogTime != "2026-03-14T09:20:00Z" || *p.LastLoss != 1.5 {
		t.Errorf("last log time %q loss %v", p.LastLogTime, deref(p.LastLoss))
	}
	if p.Throughput == nil || p.Throughput.Samples != 5 || p.Throughput.Unit != UnitSamples {
		t.Errorf("throughput = %+v", p.Throughput)
	}
	if p.Checkpoint == nil || *p.Checkpoint.LatestStep != 100 {
		t.Errorf("checkpoint = %+v", p.Checkpoint)
	}
	if q := JobProgress(nil); q.Known || q.LastStep != nil {
		t.Errorf("empty = %+v", q)
	}
}

func timeAt(ns int64) time.Time { return time.Unix(0, ns) }

// metricPatterns read a step, two metrics and checkpoint saves.
func metricPatterns() []map[string]any {
	return []map[string]any{
		{"id": "step", "pattern": `step (?P<step>\d+)`},
		{"id": "grad", "pattern": `grad_norm=(?P<grad_norm>\S+)`},
		{"id": "nan", "pattern": `nan_iters=(?P<nan_iters>\d+)`},
		{"id": "save", "pattern": `saved checkpoint-(?P<saved_step>\d+)`},
	}
}

// TestMetricTracks follows a grad norm that goes nan, recovers and goes
// bad for good, and a counter that ends non-zero.
func TestMetricTracks(t *testing.T) {
	s := mustCompile(t, nil, metricPatterns())
	p := scanTestdata(t, s, "progress/metrics.log").Progress
	if p == nil {
		t.Fatal("no progress")
	}
	at := func(line int, sec int, step *int64, value *float64, text string) *evidence.MetricPoint {
		return &evidence.MetricPoint{Line: line, Time: fmt.Sprintf("2026-03-14T09:00:%02dZ", sec), Step: step, Value: value, Text: text}
	}
	want := map[string]evidence.MetricTrack{
		"grad_norm": {
			Reports:        6,
			NonFinite:      4,
			Last:           *at(7, 7, nil, nil, "grad_norm=-inf"),
			LastFinite:     at(3, 3, ptr[int64](30), ptr(0.7), ""),
			FirstNonFinite: at(2, 2, ptr[int64](20), nil, "step 20 grad_norm=nan nan_iters=1"),
			LastNonFinite:  at(7, 7, nil, nil, "grad_norm=-inf"),
			NonFiniteRun:   3,
			NonFiniteSince: at(5, 5, ptr[int64](40), nil, "step 40 grad_norm=inf nan_iters=2"),
			// nan and inf are not zero: every report was non-zero.
			NonZeroRun:   6,
			NonZeroSince: at(1, 1, ptr[int64](10), ptr(0.5), "step 10 grad_norm=0.5 nan_iters=0"),
		},
		"nan_iters": {
			Reports:      5,
			Last:         *at(6, 6, ptr[int64](50), ptr(3.0), "step 50 grad_norm=NaN nan_iters=3"),
			LastFinite:   at(6, 6, ptr[int64](50), ptr(3.0), ""),
			NonZeroRun:   2,
			NonZeroSince: at(5, 5, ptr[int64](40), ptr(2.0), "step 40 grad_norm=inf nan_iters=2"),
		},
	}
	if !reflect.DeepEqual(p.Metrics, want) {
		got, _ := json.MarshalIndent(p.Metrics, "", " ")
		exp, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("metrics:\n%s\nwant:\n%s", got, exp)
	}
	if p.LastSavedStep == nil || *p.LastSavedStep != 30 || p.LastSavedLine != 4 || p.LastSavedTime != "2026-03-14T09:00:04Z" {
		t.Errorf("last saved = %v at line %d, %q", deref(p.LastSavedStep), p.LastSavedLine, p.LastSavedTime)
	}
}

// TestMetricReports checks what counts as one report: each
// carriage-return segment of a bar is one, and a record that two
// patterns read is one.
func TestMetricReports(t *testing.T) {
	s := mustCompile(t, nil, []map[string]any{
		{"id": "loss", "pattern": `loss=(?P<loss>\S+)`},
		{"id": "loss2", "pattern": `\|loss (?P<loss>\S+)`},
	})
	lf := scanString(t, s, "a loss=1.5\rb loss=nan\rc loss=nan\n|loss nan loss=NaN\nno report\n", Options{})
	if _, err := json.Marshal(lf); err != nil {
		t.Fatalf("json: %v", err)
	}
	m := lf.Progress.Metrics["loss"]
	if m.Reports != 4 || m.NonFinite != 3 || m.NonFiniteRun != 3 || m.LastFinite == nil || m.LastFinite.Line != 1 || m.Last.Line != 2 {
		t.Errorf("loss track = %+v", m)
	}
	if m.NonFiniteSince == nil || m.NonFiniteSince.Line != 1 || m.NonFiniteSince.Text != "b loss=nan" {
		t.Errorf("run since = %+v", m.NonFiniteSince)
	}
	if lf.Progress.NonFiniteLoss != 3 || lf.Progress.LastLoss == nil || *lf.Progress.LastLoss != 1.5 {
		t.Errorf("loss = %v, non-finite %d", deref(lf.Progress.LastLoss), lf.Progress.NonFiniteLoss)
	}
}

// TestRecordAllocates nothing per step line once a metric is known:
// it runs on every step of every log.
func TestRecordAllocates(t *testing.T) {
	var ps progressState
	text := []byte(strings.Repeat("x", 400))
	lp := lineProgress{metric: make([]float64, 2), hasMetric: make([]bool, 2)}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		lp.step, lp.hasStep, lp.total, lp.hasTotal, lp.loss, lp.hasLoss = int64(i), true, 5000, true, 1.5, true
		lp.metric[0], lp.hasMetric[0] = float64(i%3), true
		if i%5 == 0 {
			lp.metric[1], lp.hasMetric[1] = math.NaN(), true
		}
		ps.record(&lp, i, int64(i), text)
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per line", allocs)
	}
	if p := ps.result([]string{"a", "b"}); p == nil || p.StepSamples < 1000 || p.Metrics["b"].NonFinite < 200 {
		t.Errorf("progress = %+v", p)
	}
}

// TestJobProgressLastSaved takes the newest save any log reports: the
// master saves, a worker does not, a previous instance saved less.
func TestJobProgressLastSaved(t *testing.T) {
	s := mustCompile(t, nil, metricPatterns())
	log := func(text string) evidence.LogFile { return scanString(t, s, text, Options{}) }
	pods := []evidence.Pod{
		{Name: "m", Containers: []evidence.Container{{Logs: []evidence.LogFile{
			log("2026-03-14T08:00:00Z saved checkpoint-100\n"),
			log("2026-03-14T09:00:00Z step 250\n2026-03-14T09:00:01Z saved checkpoint-200\n2026-03-14T09:10:00Z step 300\n"),
		}}}},
		{Name: "w", Containers: []evidence.Container{{Logs: []evidence.LogFile{log("step 300\n")}}}},
	}
	p := JobProgress(pods)
	if p.LastSavedStep == nil || *p.LastSavedStep != 200 || p.LastSavedTime != "2026-03-14T09:00:01Z" {
		t.Errorf("last saved = %v at %q", deref(p.LastSavedStep), p.LastSavedTime)
	}
	if q := JobProgress(pods[1:]); q.LastSavedStep != nil {
		t.Errorf("no save reported, got %v", *q.LastSavedStep)
	}
}
