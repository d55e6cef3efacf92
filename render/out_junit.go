package render

import (
	"io"

	"github.com/traindoc/traindoc/engine/report"
)

func init() {
	register(&Format{Name: "junit", Summary: "JUnit XML: one test case per job, a failure per finding at or above --fail-on", Out: junitOut{}})
}

type junitOut struct{}

func (junitOut) Write(w io.Writer, rep *report.Report, o Options) error {
	b, err := JUnit(rep, o.Lang, o.FailOn)
	return writeBytes(w, b, err)
}
