package render

import (
	"encoding/json"
	"testing"
)

// SARIF output is one run whose results are the findings.
func TestSARIFOutput(t *testing.T) {
	var log struct {
		Runs []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(writeFormat(t, "sarif", "en", "cascade-cuda-oom-nccl-timeout")), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Results) != 2 {
		t.Errorf("want one run with two results, got %+v", log)
	}
}
