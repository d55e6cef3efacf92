package execout

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func i64(v int64) *int64 { return &v }

func TestParseNvidiaSMI(t *testing.T) {
	tests := []struct {
		file string
		want evidence.NvidiaSMI
	}{
		{"nvidia-smi-table.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{
				{Index: 0, Name: "NVIDIA H100 80GB HBM3", Utilization: 97, MemoryUsed: 70123, MemoryTotal: 81559},
				{Index: 1, Name: "NVIDIA H100 80GB HBM3", Utilization: 95, MemoryUsed: 70011, MemoryTotal: 81559},
				{Index: 2, Name: "NVIDIA H100 80GB HBM3", Utilization: 0, MemoryUsed: 4, MemoryTotal: 81559},
			},
			AvgUtilization: 64, Processes: 2,
		}},
		{"nvidia-smi-old.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{{Index: 0, Name: "Tesla V100-SXM2...", Utilization: 0, MemoryUsed: 0, MemoryTotal: 16160}},
		}},
		{"nvidia-smi-csv.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{
				{Index: 0, Utilization: 98, MemoryUsed: 70123, MemoryTotal: 81559},
				{Index: 1, Utilization: 0, MemoryUsed: 4, MemoryTotal: 81559},
			},
			AvgUtilization: 49,
		}},
		{"nvidia-smi-csv-nounits.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{
				{Index: 0, Name: "NVIDIA A100-SXM4-40GB", Utilization: 55, MemoryUsed: 30000, MemoryTotal: 40960},
				{Index: 1, Name: "NVIDIA A100-SXM4-40GB", Utilization: 0, MemoryUsed: 0, MemoryTotal: 40960},
			},
			AvgUtilization: 27.5,
		}},
		{"nvidia-smi-csv-noheader.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{
				{Index: 0, Utilization: 12, MemoryUsed: 1000, MemoryTotal: 24576},
				{Index: 1, Utilization: 14, MemoryUsed: 1200, MemoryTotal: 24576},
			},
			AvgUtilization: 13,
		}},
		// A GPU the driver can no longer read prints ERR! in its cells,
		// its name included (GPU 1, as in NVIDIA/open-gpu-kernel-modules#446);
		// a lone ERR! power draw (GPU 2, Azure/azhpc-diagnostics#77) or
		// ECC column (GPU 3) is reported too: judging it is the rules' part.
		{"nvidia-smi-err.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{
				{Index: 0, Name: "Tesla V100-SXM2...", Utilization: 88, MemoryUsed: 28140, MemoryTotal: 32510},
				{Index: 1, Name: "ERR!", MemoryUsed: 28140, MemoryTotal: 32510,
					ErrCells: []string{"name", "ecc", "fan", "temp", "perf", "power", "util"}},
				{Index: 2, Name: "Tesla V100-SXM2...", Utilization: 91, MemoryUsed: 28140, MemoryTotal: 32510,
					ErrCells: []string{"power"}},
				{Index: 3, Name: "Tesla V100-SXM2...", Utilization: 90, MemoryUsed: 28140, MemoryTotal: 32510,
					ErrCells: []string{"ecc"}},
			},
			AvgUtilization: 67.25, Processes: 4,
		}},
		// The wider table of drivers 525 and later; a lone fan ERR! (GPU 2).
		{"nvidia-smi-err-550.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{
				{Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryUsed: 1, MemoryTotal: 81920},
				{Index: 1, Name: "NVIDIA A100-SXM4-80GB", MemoryUsed: 1, MemoryTotal: 81920,
					ErrCells: []string{"ecc", "fan", "temp", "perf", "power", "util"}},
				{Index: 2, Name: "NVIDIA A100-SXM4-80GB", MemoryUsed: 1, MemoryTotal: 81920,
					ErrCells: []string{"fan"}},
			},
		}},
		// The query form prints NVML's error in brackets where it could
		// not read a value; the cells are named as in the table.
		{"nvidia-smi-csv-err.txt", evidence.NvidiaSMI{
			GPUs: []evidence.GPU{
				{Index: 0, Name: "NVIDIA A100-SXM4-80GB", Utilization: 97, MemoryUsed: 61234, MemoryTotal: 81920},
				{Index: 1, Name: "NVIDIA A100-SXM4-80GB", ErrCells: []string{"temp", "util", "memory"}},
				{Index: 2, Name: "NVIDIA A100-SXM4-80GB", MemoryTotal: 81920, ErrCells: []string{"temp", "util"}},
				{Index: 3, Name: "NVIDIA A100-SXM4-80GB", Utilization: 95, MemoryUsed: 61180, MemoryTotal: 81920, ErrCells: []string{"fan"}},
			},
			AvgUtilization: 48,
		}},
		{"nvidia-smi-error.txt", evidence.NvidiaSMI{
			GPUs:  []evidence.GPU{},
			Error: "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseNvidiaSMI(open(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
	if _, err := ParseNvidiaSMI(strings.NewReader("hello\n")); err == nil {
		t.Error("garbage accepted")
	}
}

func TestParseRayStatus(t *testing.T) {
	got, err := ParseRayStatus(open(t, "ray-status.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := evidence.RayStatus{
		GPUsUsed: 0, GPUsTotal: 16, CPUsUsed: 12, CPUsTotal: 192, ActiveNodes: 4, PendingNodes: 2,
		Demands: []string{"{'GPU': 8.0, 'CPU': 1.0}: 2+ pending tasks/actors"},
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got  %+v\nwant %+v", *got, want)
	}
	got, err = ParseRayStatus(open(t, "ray-status-old.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want = evidence.RayStatus{GPUsUsed: 2, GPUsTotal: 2, CPUsUsed: 8, CPUsTotal: 16, ActiveNodes: 2}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("old: got  %+v\nwant %+v", *got, want)
	}
	if _, err := ParseRayStatus(strings.NewReader("ConnectionError: could not find any running Ray instance\n")); err == nil {
		t.Error("error output accepted")
	}
}

func TestParseRayJobList(t *testing.T) {
	tests := []struct {
		file string
		want []evidence.RayJobInfo
	}{
		{"ray-job-list.txt", []evidence.RayJobInfo{
			{ID: "raysubmit_9xYzAbC123", Status: "RUNNING", Entrypoint: `python3 train.py --config "grpo, 8 nodes"`, Message: "Job is currently running."},
			{ID: "raysubmit_failed42", Status: "FAILED", Entrypoint: "python3 train.py",
				Message: "Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):\nRuntimeError: it's broken"},
		}},
		{"ray-job-list-old.txt", []evidence.RayJobInfo{
			{ID: "raysubmit_old1", Status: "SUCCEEDED", Entrypoint: "python train.py", Message: "Job finished successfully."},
		}},
		{"ray-job-list-empty.txt", []evidence.RayJobInfo{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseRayJobList(open(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseDir(t *testing.T) {
	out, errs := ParseDirAt(filepath.Join("testdata", "pod-a"), time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if out.NvidiaSMI == nil || out.NvidiaSMI.File != "exec/pod-a/nvidia-smi.txt" || len(out.NvidiaSMI.GPUs) != 3 {
		t.Errorf("nvidia-smi = %+v", out.NvidiaSMI)
	}
	if out.RayStatus == nil || out.RayStatus.File != "exec/pod-a/ray-status.txt" || len(out.RayJobs) != 2 {
		t.Errorf("ray = %+v %+v", out.RayStatus, out.RayJobs)
	}
	if out.Checkpoints == nil || *out.Checkpoints.LatestStep != 1000 || out.Checkpoints.LatestTime == "" {
		t.Errorf("checkpoints = %+v", out.Checkpoints)
	}
	if len(out.Other) != 1 || out.Other[0].Name != "df-shm" || out.Other[0].File != "exec/pod-a/df-shm.txt" || !strings.Contains(out.Other[0].Text, "/dev/shm") {
		t.Errorf("other = %+v", out.Other)
	}

	out, errs = ParseDir(filepath.Join("testdata", "pod-broken"))
	if len(errs) != 2 {
		t.Fatalf("errors = %v", errs)
	}
	for _, err := range errs {
		if !strings.Contains(err.Error(), "exec/pod-broken/") {
			t.Errorf("error does not name the file: %v", err)
		}
	}
	if len(out.Other) != 2 || out.NvidiaSMI != nil {
		t.Errorf("broken files not kept as text: %+v", out)
	}
	if _, errs := ParseDir(filepath.Join("testdata", "missing")); len(errs) != 1 {
		t.Errorf("missing dir: %v", errs)
	}
}

func TestTrimMiddle(t *testing.T) {
	s := strings.Repeat("line of text ✓\n", 2000)
	got := trimMiddle(s, maxOtherText)
	if len(got) > maxOtherText || !strings.Contains(got, "bytes omitted") || !strings.HasPrefix(got, "line of text") || !strings.HasSuffix(got, "✓\n") {
		t.Errorf("trimmed to %d bytes: %q ... %q", len(got), got[:40], got[len(got)-40:])
	}
	if trimMiddle("short", 10) != "short" {
		t.Error("short text changed")
	}
}
