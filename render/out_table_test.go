package render

import (
	"strings"
	"testing"
)

// The table has one row per job with its state, held jobs not shown as
// failing, and the warnings after it.
func TestTableOutput(t *testing.T) {
	out := writeFormat(t, "table", "en", "job-suspended")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "JOB") || len(lines) != 3 {
		t.Fatalf("table:\n%s", out)
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, "Suspended") || strings.Contains(l, "Not healthy") {
			t.Errorf("a suspended job reads as failing: %s", l)
		}
	}
}
