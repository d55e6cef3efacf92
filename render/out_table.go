package render

import (
	"io"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

func init() {
	register(&Format{Name: "table", Summary: "one line per job", Out: tableOut{}})
}

// tableOut prints one row per job, columns aligned by terminal cells, then
// everything traindoc could not read or use: a table must not hide it.
type tableOut struct{}

func (tableOut) Write(w io.Writer, rep *report.Report, o Options) error {
	lang := NormalizeLang(o.Lang)
	rows := [][]string{{
		tt(lang, "col.job"), tt(lang, "col.kind"), tt(lang, "col.phase"), tt(lang, "col.state"),
		tt(lang, "col.category"), tt(lang, "col.severity"), tt(lang, "col.act"),
	}}
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		cat, sev, act := "", "", ""
		if j.Primary != nil {
			cat = j.Primary.Category
			if !j.Healthy {
				sev = SeverityLabel(lang, j.Primary.Severity)
				act = OwnerShort(lang, j.Primary.Owner)
			}
		}
		rows = append(rows, []string{clean(j.Namespace + "/" + j.Name), clean(j.Kind), clean(j.Phase),
			StateLabel(lang, JobState(j)), clean(cat), sev, act})
	}
	var b strings.Builder
	b.WriteString(table(rows))
	if ws := rep.AllWarnings(); len(ws) > 0 {
		b.WriteString("\n" + tt(lang, "warnings") + T(lang, "punct.colon") + "\n")
		for _, wn := range ws {
			b.WriteString("  " + clean(wn) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
