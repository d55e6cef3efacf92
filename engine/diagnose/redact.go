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
		e := &f.Evidence[i]
		e.Text = texts[i]
		e.Source = redact.String(e.Source)
		// The context is redacted as one block with its line, so that a
		// key split across the excerpt's lines is caught too.
		if len(e.Before)+len(e.After) > 0 {
			block := redact.Lines(append(append(append([]string{}, e.Before...), e.Text), e.After...))
			e.Before, e.After = block[:len(e.Before)], block[len(e.Before)+1:]
		}
	}
}

func redactText(t report.Text) report.Text {
	return report.Text{En: redact.String(t.En), Zh: redact.String(t.Zh)}
}
