package explain

import (
	"strings"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    answer
		wantErr bool
	}{
		{
			name: "json",
			in:   `{"healthy":"No","error":"OOM","analysis":"The master ran out of memory.","solution":["Lower batch size","Raise limit"]}`,
			want: answer{"No", "OOM", "The master ran out of memory.", []string{"Lower batch size", "Raise limit"}},
		},
		{
			name: "json in a code fence with prose around",
			in:   "Here is the diagnosis:\n```json\n{\"Healthy\": false, \"Error\": \"OOM\", \"Analysis\": \"a\", \"Solution\": \"1. x\\n2. y\"}\n```\n",
			want: answer{"No", "OOM", "a", []string{"x", "y"}},
		},
		{
			name: "json with chinese keys and step objects",
			in:   `{"健康":"否","错误":"显存不足","分析":"rank 13 OOM","解决方案":[{"step":1,"action":"减小 batch"},"2. 重试"]}`,
			want: answer{"No", "显存不足", "rank 13 OOM", []string{"减小 batch", "重试"}},
		},
		{
			name: "plain sections",
			in:   "Healthy: No\nError: Pod cannot be scheduled\nAnalysis: No node has 8 GPUs.\nSolution:\n1. Reduce GPUs per pod.\n2. Add nodes.",
			want: answer{"No", "Pod cannot be scheduled", "No node has 8 GPUs.", []string{"Reduce GPUs per pod.", "Add nodes."}},
		},
		{
			name: "markdown headings and bold",
			in:   "## Healthy\nNo\n\n**Error:** NCCL timeout on rank 3\n\n### Analysis\nRank 3 stalled.\n\nIt never came back.\n\n**Solution**\n- Check the network\n  of node a\n- Restart",
			want: answer{"No", "NCCL timeout on rank 3", "Rank 3 stalled.\n\nIt never came back.", []string{"Check the network of node a", "Restart"}},
		},
		{
			name: "chinese sections with full-width colons",
			in:   "健康：否\n错误：镜像拉取失败\n分析：镜像标签不存在。\n解决方案：\n1、修正镜像标签\n2、重新提交",
			want: answer{"No", "镜像拉取失败", "镜像标签不存在。", []string{"修正镜像标签", "重新提交"}},
		},
		{
			name: "solution without markers",
			in:   "Healthy: Yes\nError: none\nAnalysis: fine\nSolution: Nothing to do.",
			want: answer{"Yes", "none", "fine", []string{"Nothing to do."}},
		},
		{
			name: "secrets in the answer are masked",
			in:   `{"healthy":"No","error":"token hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890 invalid","analysis":"PASSWORD=hunter2 leaked","solution":["rotate"]}`,
			want: answer{"No", "token [REDACTED] invalid", "PASSWORD=[REDACTED] leaked", []string{"rotate"}},
		},
		{name: "garbage", in: "lorem ipsum dolor sit amet", wantErr: true},
		{name: "only a verdict", in: "Healthy: No", wantErr: true},
		{name: "json without the fields", in: `{"foo": 1}`, wantErr: true},
		{name: "empty", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAnswer(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Errorf("parsed %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Healthy != tt.want.Healthy || got.Error != tt.want.Error || got.Analysis != tt.want.Analysis ||
				strings.Join(got.Solution, "|") != strings.Join(tt.want.Solution, "|") {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestNormHealthy(t *testing.T) {
	for in, want := range map[string]string{
		"Yes": "Yes", "yes.": "Yes", "**No**": "No", "Not healthy": "No", "否": "No", "是": "Yes",
		"不健康": "No", "健康": "Yes", "": "", "partially": "partially",
	} {
		if got := normHealthy(in); got != want {
			t.Errorf("normHealthy(%q) = %q, want %q", in, got, want)
		}
	}
}
