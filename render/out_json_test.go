package render

import (
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

// JSON is the report itself: it reads back to the same report, whatever
// the language asked for.
func TestJSONOutput(t *testing.T) {
	en, zh := writeFormat(t, "json", "en", "cascade-cuda-oom-nccl-timeout"), writeFormat(t, "json", "zh", "cascade-cuda-oom-nccl-timeout")
	if en != zh {
		t.Error("JSON differs by language")
	}
	rep, err := report.Read(strings.NewReader(en))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Jobs) != 1 || len(rep.Jobs[0].SummaryParts) == 0 {
		t.Errorf("the report did not survive: %+v", rep.Jobs)
	}
}
