package render

import (
	"strings"
	"testing"
)

// The text output opens each job with its verdict lines, in the reports'
// words, and ends with the table.
func TestTextOutputLayout(t *testing.T) {
	out := writeFormat(t, "text", "zh", "cascade-512-ranks")
	lines := strings.Split(out, "\n")
	if lines[0] != "PyTorchJob foundation/llm70b-pt" || strings.TrimSpace(lines[1]) != "不健康：GPU 显存不足" {
		t.Errorf("the job does not open with its verdict:\n%s", out)
	}
	if !strings.Contains(out, "位置：") || !strings.Contains(out, "rank 37") || !strings.Contains(out, "ip-10-1-57-202") {
		t.Errorf("the text output does not say where:\n%s", out)
	}
	if !strings.Contains(out, "\n作业 ") {
		t.Errorf("the table is missing:\n%s", out)
	}
	// Terminal control sequences from the cluster never reach the
	// terminal.
	if strings.ContainsRune(clean("a\x1b[31mred\x07"), 0x1b) {
		t.Error("clean let an escape through")
	}
}
