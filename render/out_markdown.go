package render

import (
	"io"

	"github.com/traindoc/traindoc/engine/report"
)

func init() {
	register(&Format{Name: "markdown", Aliases: []string{"md"}, Summary: "GitHub-flavoured Markdown, for a pull request or a wiki", Out: markdownOut{}})
}

type markdownOut struct{}

func (markdownOut) Write(w io.Writer, rep *report.Report, o Options) error {
	return writeBytes(w, ReportMarkdown(rep, NormalizeLang(o.Lang), o.Version), nil)
}
