package render

import (
	"io"

	"github.com/traindoc/traindoc/engine/report"
)

func init() {
	register(&Format{Name: "sarif", Summary: "SARIF 2.1.0, for code-scanning dashboards", Out: sarifOut{}})
}

type sarifOut struct{}

func (sarifOut) Write(w io.Writer, rep *report.Report, o Options) error {
	b, err := SARIF(rep, o.Lang, o.Version)
	return writeBytes(w, b, err)
}
