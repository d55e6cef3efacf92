package render

import (
	"io"

	"github.com/traindoc/traindoc/engine/report"
)

func init() {
	register(&Format{Name: "json", Summary: "the report itself, the unit every other format and the site are made from", Out: jsonOut{}})
}

// jsonOut writes the report model as indented JSON; it is the same in
// every language, since the model carries both.
type jsonOut struct{}

func (jsonOut) Write(w io.Writer, rep *report.Report, _ Options) error { return rep.Write(w) }
