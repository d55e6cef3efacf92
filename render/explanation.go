package render

import (
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// explanationLabels are the words of the explanation section that the UI
// catalogue may not have yet. A catalogue entry under the same key wins, so
// moving them into i18n/*.yaml needs no change here.
var explanationLabels = map[string]map[string]string{
	"en": {
		"explain.healthy":    "Healthy",
		"explain.error":      "Error",
		"explain.cached":     "cached",
		"explain.disclaimer": "Written by a language model from the findings above; check it against the evidence.",
		"explain.yes":        "Yes",
		"explain.no":         "No",
	},
	"zh": {
		"explain.healthy":    "健康",
		"explain.error":      "错误",
		"explain.cached":     "缓存",
		"explain.disclaimer": "由语言模型根据上述发现写成，请对照证据核实。",
		"explain.yes":        "是",
		"explain.no":         "否",
	},
}

// explainT is T for the explanation section, falling back to
// explanationLabels when the catalogue lacks the key.
func explainT(lang, key string) string {
	if s := T(lang, key); s != key {
		return s
	}
	if s, ok := explanationLabels[NormalizeLang(lang)][key]; ok {
		return s
	}
	return explanationLabels["en"][key]
}

// explanationMarkdown renders the LLM explanation of a job as its own
// section at heading level lvl, in the four parts the prompt asks for:
// Healthy, Error, Analysis and Solution, with the model name. When the
// explanation is missing it renders the reason as a note. The text is model
// output, so it is escaped like any other untrusted text. It returns "" for
// a nil explanation.
func explanationMarkdown(e *report.Explanation, lang string, lvl int) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	colon := escapeInline(T(lang, "punct.colon"))
	label := func(key string) string { return "**" + escapeInline(explainT(lang, key)) + colon + "**" }

	b.WriteString(heading(lvl) + " " + escapeInline(T(lang, "explain.title")) + "\n\n")
	if e.Missing != "" && e.Error == "" && e.Analysis == "" && len(e.Solution) == 0 {
		b.WriteString("> " + escapeInline(Tf(lang, "explain.missing", "reason", e.Missing)) + "\n\n")
		return b.String()
	}
	b.WriteString("*" + escapeInline(explainT(lang, "explain.disclaimer")) + "*\n\n")
	if e.Model != "" {
		m := escapeInline(e.Model)
		if e.Cached {
			m += " (" + escapeInline(explainT(lang, "explain.cached")) + ")"
		}
		b.WriteString("- " + label("explain.model") + " " + m + "\n")
	}
	if e.Healthy != "" {
		h := e.Healthy
		switch strings.ToLower(h) {
		case "yes":
			h = explainT(lang, "explain.yes")
		case "no":
			h = explainT(lang, "explain.no")
		}
		b.WriteString("- " + label("explain.healthy") + " " + escapeInline(h) + "\n")
	}
	if e.Error != "" {
		b.WriteString("- " + label("explain.error") + " " + escapeInline(e.Error) + "\n")
	}
	b.WriteString("\n")
	if e.Analysis != "" {
		b.WriteString("**" + escapeInline(T(lang, "explain.analysis")) + "**\n\n")
		for _, para := range strings.Split(strings.ReplaceAll(e.Analysis, "\r\n", "\n"), "\n\n") {
			if p := strings.TrimSpace(para); p != "" {
				b.WriteString(escapeInline(p) + "\n\n")
			}
		}
	}
	if len(e.Solution) > 0 {
		b.WriteString("**" + escapeInline(T(lang, "explain.solution")) + "**\n\n")
		for i, s := range e.Solution {
			b.WriteString(strconv.Itoa(i+1) + ". " + escapeInline(s) + "\n")
		}
		b.WriteString("\n")
	}
	if e.Missing != "" {
		b.WriteString("> " + escapeInline(Tf(lang, "explain.missing", "reason", e.Missing)) + "\n\n")
	}
	return b.String()
}
