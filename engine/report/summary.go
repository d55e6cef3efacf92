package report

import (
	"strings"

	"github.com/traindoc/traindoc/internal/i18n"
)

// SummaryIn renders the job's summary parts in lang, or returns the saved
// Summary text of a report written before summaries were data.
func (j *Job) SummaryIn(lang string) string {
	if len(j.SummaryParts) == 0 {
		return j.Summary.In(lang)
	}
	var out []string
	for _, p := range j.SummaryParts {
		out = append(out, j.PartText(p, lang, nil))
	}
	return strings.Join(out, i18n.T(lang, "engine.summary.sep"))
}

// PartText renders one summary part in lang. quote, when not nil, is
// applied to every parameter taken from the cluster (object names and
// kinds), so that a renderer can mark them as quoted; the finding's title
// is inserted as it is.
func (j *Job) PartText(p Part, lang string, quote func(string) string) string {
	params := make(map[string]string, len(p.Params)+1)
	for k, v := range p.Params {
		if quote != nil && k != "n" && k != "rank" {
			v = quote(v)
		}
		params[k] = v
	}
	if f := j.FindingByID(p.Finding); f != nil {
		params["title"] = f.Title.In(lang)
	}
	text := i18n.TMap(lang, p.Key, params)
	if p.Role == RoleConsequence || p.Role == RoleAlso {
		text = i18n.Tf(lang, "engine.summary.role."+p.Role, "part", text)
	}
	return text
}

// FindingByID returns the job's finding with id (the primary included), or
// nil.
func (j *Job) FindingByID(id string) *Finding {
	if id == "" {
		return nil
	}
	for i := range j.Findings {
		if j.Findings[i].ID == id {
			return &j.Findings[i]
		}
	}
	if j.Primary != nil && j.Primary.ID == id {
		return j.Primary
	}
	return nil
}
