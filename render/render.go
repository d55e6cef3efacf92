// Package render turns one report into the formats people and CI systems
// read: a terminal summary and table, JSON, Markdown and HTML in every
// report language, SARIF and JUnit. Every format renders from the same
// report model, so they always agree, and each is one file registered in
// one registry (output.go) that the CLI asks.
package render

import (
	"github.com/traindoc/traindoc/engine/report"
)

// Options tune rendering.
type Options struct {
	// Lang is a report language (see Languages); anything else renders
	// English. The CLI checks it with Check first.
	Lang string
	// FailOn is the severity at or above which a finding counts as a test
	// failure in JUnit output ("" means error).
	FailOn string
	// Version is the traindoc version shown when the report has none.
	Version string
}

func reportHTML(rep *report.Report, lang, version string) ([]byte, error) {
	title := T(lang, "report.title")
	if len(rep.Jobs) == 1 {
		title = jobHeading(&rep.Jobs[0]) + " · " + title
	}
	return markdownPage(ReportMarkdown(rep, lang, version), title, lang, versionOf(rep, version))
}

// JobHTML renders one job as a complete, self-contained HTML page.
func JobHTML(job *report.Job, rep *report.Report, lang string) ([]byte, error) {
	title := jobHeading(job) + " · " + T(lang, "report.title")
	return markdownPage(JobMarkdown(job, rep, lang), title, lang, versionOf(rep, ""))
}

func versionOf(rep *report.Report, fallback string) string {
	if rep.Tool.Version != "" {
		return rep.Tool.Version
	}
	if fallback != "" {
		return fallback
	}
	return "dev"
}
