package render

import (
	"strings"
	"testing"
)

// HTML is one offline page in the asked language, the verdict as its
// block, consequences as <details>, quoted text marked translate="no".
func TestHTMLOutput(t *testing.T) {
	out := writeFormat(t, "html", "zh", "cascade-cuda-oom-nccl-timeout")
	for _, want := range []string{
		`<html lang="zh-CN">`,
		`<p class="verdict state-unhealthy">`,
		`<ul class="verdict-facts">`,
		"<details>\n<summary>3 个 Pod：集合通信超时（后果）</summary>",
		`<pre translate="no" class="log">`,
		`<code translate="no">gpt-7b-pretrain-worker-0</code>`,
		`<td data-label="节点">`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	checkHTML(t.Errorf, "zh", []byte(out))
}
