package render

import (
	"strings"
	"testing"
)

// Markdown opens with the job's heading and its verdict, in the language
// asked for.
func TestMarkdownOutput(t *testing.T) {
	for lang, verdict := range map[string]string{"en": "**❌ Not healthy: GPU out of memory**", "zh": "**❌ 不健康：GPU 显存不足**"} {
		out := writeFormat(t, "markdown", lang, "cascade-cuda-oom-nccl-timeout")
		if !strings.HasPrefix(out, "# PyTorchJob `pretrain/gpt-7b-pretrain`\n\n"+verdict+"\n") {
			t.Errorf("%s: the Markdown does not open with heading and verdict:\n%s", lang, out[:min(len(out), 300)])
		}
	}
}
