package render

import (
	"io"

	"github.com/traindoc/traindoc/engine/report"
)

func init() {
	register(&Format{Name: "html", Summary: "one self-contained HTML page that works offline", Out: htmlOut{}})
}

type htmlOut struct{}

func (htmlOut) Write(w io.Writer, rep *report.Report, o Options) error {
	b, err := reportHTMLOf(rep, o)
	return writeBytes(w, b, err)
}

func reportHTMLOf(rep *report.Report, o Options) ([]byte, error) {
	return reportHTML(rep, NormalizeLang(o.Lang), o.Version)
}
