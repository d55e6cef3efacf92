package render

import (
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

func TestExplanationMarkdown(t *testing.T) {
	full := &report.Explanation{
		Model: "gpt-4o-mini", Language: "en", Healthy: "No", Error: "Master OOM-killed <b>",
		Analysis: "Rank 0 buffered the dataset.\n\nThe workers lost it.",
		Solution: []string{"Stream the dataset.", "Raise the limit to 96Gi."}, Cached: true,
	}
	tests := []struct {
		name  string
		e     *report.Explanation
		lang  string
		wants []string
		not   []string
	}{
		{"nil", nil, "en", nil, []string{"#"}},
		{"four parts en", full, "en", []string{
			"### Explanation by a language model\n",
			"- **Model:** `gpt-4o-mini` (cached)\n",
			"- **Healthy:** No\n",
			"- **Error:** Master OOM-killed",
			"Rank 0 buffered the dataset.\n\nThe workers lost it.\n",
			"1. Stream the dataset.\n2. Raise the limit to 96Gi.\n",
		}, []string{"<b>"}},
		{"four parts zh", full, "zh", []string{"### 语言模型的解释", "否", "错误", "1. Stream the dataset."}, nil},
		{"missing", &report.Explanation{Model: "m", Missing: "the LLM request timed out after 1m0s"}, "en", []string{
			"### Explanation by a language model\n", "> No explanation: `the LLM request timed out after 1m0s`",
		}, []string{"Model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newMDWriter(tt.lang)
			w.explanation(tt.e, 3)
			got := string(w.finish())
			for _, w := range tt.wants {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("contains %q:\n%s", n, got)
				}
			}
		})
	}
}
