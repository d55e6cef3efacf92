package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

func testReport() *report.Report {
	p := report.Finding{
		ID: "exec-cuda-oom-1", Rule: "exec-cuda-oom", Category: "exec.cuda-oom", Severity: "error", Owner: "user",
		Title:       report.Text{En: "GPU out of memory", Zh: "GPU 显存不足"},
		Message:     report.Text{En: "rank 3 ran out", Zh: "rank 3 显存不足"},
		Remediation: report.Text{En: "- Lower the batch size.\n- Enable checkpointing.", Zh: "- 减小批大小。"},
		Evidence:    []report.Evidence{{Kind: "log", Source: "pod w-0", Text: "OOM \x1b[31mred\x1b[0m\rline"}},
	}
	return &report.Report{Jobs: []report.Job{{
		Kind: "PyTorchJob", Namespace: "ml", Name: "llama\x1b]0;pwned\x07", Phase: "Failed",
		Summary: report.Text{En: "pod w-0: GPU out of memory", Zh: "Pod w-0：GPU 显存不足"},
		Primary: &p, Findings: []report.Finding{p, {ID: "t", Category: "exec.nccl-timeout", Severity: "error", Consequence: true,
			Title: report.Text{En: "Collective operation timed out", Zh: "集合通信超时"}}},
	}}}
}

func TestWrite(t *testing.T) {
	for _, tc := range []struct{ lang, want string }{
		{"en", "Fix: Lower the batch size."},
		{"zh", "处理: 减小批大小。"},
	} {
		var b bytes.Buffer
		if err := Write(&b, testReport(), tc.lang); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("%s: control characters from untrusted text reached the terminal: %q", tc.lang, out)
		}
		for _, want := range []string{tc.want, "exec.cuda-oom", "exec.nccl-timeout", "ml/llama"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", tc.lang, want, out)
			}
		}
	}
}
