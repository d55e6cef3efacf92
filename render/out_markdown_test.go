package render

import (
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
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

// A page of one job from a report merged from several snapshots names the
// time of the job's own snapshot, as its header does, not the newest one.
func TestMarkdownFooterUsesTheJobsSnapshot(t *testing.T) {
	rep := &report.Report{CollectedAt: "2026-05-05T08:30:00Z", Tool: report.Tool{Name: "traindoc", Version: "t"}}
	rep.Jobs = []report.Job{
		{Kind: "PyTorchJob", Namespace: "a", Name: "old", Phase: "Failed", CollectedAt: "2026-03-12T03:05:41Z"},
		{Kind: "PyTorchJob", Namespace: "b", Name: "new", Phase: "Failed", CollectedAt: "2026-05-05T08:30:00Z"},
	}
	page := string(JobMarkdown(&rep.Jobs[0], rep, "en"))
	if !strings.Contains(page, "Snapshot taken 2026-03-12 03:05:41 UTC") || strings.Contains(page, "2026-05-05") {
		t.Errorf("the job's page footer does not name its own snapshot:\n%s", page[max(0, len(page)-200):])
	}
	all := string(ReportMarkdown(rep, "en", "t"))
	if !strings.Contains(all, "Snapshot taken 2026-05-05 08:30:00 UTC") {
		t.Errorf("the merged report's footer does not name the report's time:\n%s", all[max(0, len(all)-200):])
	}
}
