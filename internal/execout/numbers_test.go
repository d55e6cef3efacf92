package execout

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNumbersStayEncodable: numbers that are not finite quantities (NaN,
// Inf, more digits than a float64 holds, sums that overflow) are read as
// 0, so the evidence still encodes as JSON for the rules.
func TestNumbersStayEncodable(t *testing.T) {
	huge := strings.Repeat("9", 400)
	tests := []struct {
		name  string
		parse func(string) (any, error)
		in    string
	}{
		{"nvidia-smi CSV NaN", smi, "index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n0, NaN %, nan MiB, -Inf MiB\n"},
		{"nvidia-smi CSV Inf", smi, "0, +Inf, inf, 1e999\n"},
		{"nvidia-smi CSV negative", smi, "0, -5 %, -1 MiB, -2 GiB\n"},
		{"nvidia-smi CSV sum overflows", smi, "0, 1e308, 1, 1\n1, 1e308, 1, 1\n"},
		{"nvidia-smi table huge", smi, "+---+\n|   0  GPU  On  |\n| " + huge + "%  " + huge + "MiB / " + huge + "MiB | " + huge + "% Default |\n"},
		{"ray status huge", ray, "======== Autoscaler status ========\nUsage:\n " + huge + "/" + huge + " GPU\n " + huge + ".5/1.0 CPU\n"},
		{"ray status node count overflows", ray, "Node status\nActive:\n 9223372036854775807 gpu-group\n 9223372036854775807 gpu-group\nPending:\n gpu-group, 99999999999999999999 launching\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatalf("%v: %+v", err, out)
			}
			if strings.Contains(string(b), "-") {
				t.Errorf("negative quantity: %s", b)
			}
		})
	}
}

func smi(s string) (any, error) { return ParseNvidiaSMI(strings.NewReader(s)) }
func ray(s string) (any, error) { return ParseRayStatus(strings.NewReader(s)) }
