package diagnose

import (
	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
)

// redactJob masks secrets (tokens, keys, passwords, private keys) in every
// piece of cluster text a job report carries, so that nothing written or
// sent later can leak them: evidence, finding parameters and the messages
// made from them, the timeline and notes.
func redactJob(j *report.Job) {
	for i := range j.Findings {
		redactFinding(&j.Findings[i])
	}
	if j.Primary != nil {
		redactFinding(j.Primary)
	}
	j.Summary = redactText(j.Summary)
	for i := range j.Timeline {
		j.Timeline[i].Text = redact.String(j.Timeline[i].Text)
	}
	for i := range j.Notes {
		j.Notes[i] = redact.String(j.Notes[i])
	}
}

func redactFinding(f *report.Finding) {
	f.Message = redactText(f.Message)
	for k, v := range f.Params {
		if s, ok := v.(string); ok {
			f.Params[k] = redact.String(s)
		}
	}
	texts := make([]string, len(f.Evidence))
	for i := range f.Evidence {
		texts[i] = f.Evidence[i].Text
	}
	// Lines catches a key split over consecutive log lines.
	texts = redact.Lines(texts)
	for i := range f.Evidence {
		f.Evidence[i].Text = texts[i]
		f.Evidence[i].Source = redact.String(f.Evidence[i].Source)
	}
}

func redactText(t report.Text) report.Text {
	return report.Text{En: redact.String(t.En), Zh: redact.String(t.Zh)}
}
