// Package render turns one report into the formats people and CI systems
// read: Markdown and HTML in English and Chinese, SARIF and JUnit. Every
// format renders from the same report model, so they always agree.
package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// Formats are the output formats Write accepts.
var Formats = []string{"markdown", "html", "sarif", "junit"}

// Options tune rendering.
type Options struct {
	// Lang is "en" or "zh"; anything else renders English.
	Lang string
	// FailOn is the severity at or above which a finding counts as a test
	// failure in JUnit output ("" means error).
	FailOn string
	// Version is the traindoc version shown when the report has none.
	Version string
}

// ValidFormat reports whether format is one Write understands.
func ValidFormat(format string) bool {
	for _, f := range Formats {
		if f == format {
			return true
		}
	}
	return false
}

// Write renders rep in format to w.
func Write(w io.Writer, format string, rep *report.Report, opts Options) error {
	if rep == nil {
		return fmt.Errorf("render %s: no report", format)
	}
	lang := NormalizeLang(opts.Lang)
	var out []byte
	var err error
	switch format {
	case "markdown", "md":
		out = ReportMarkdown(rep, lang, opts.Version)
	case "html":
		out, err = reportHTML(rep, lang, opts.Version)
	case "sarif":
		out, err = SARIF(rep, lang, opts.Version)
	case "junit":
		out, err = JUnit(rep, lang, opts.FailOn)
	default:
		return fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return err
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write %s: %w", format, err)
	}
	return nil
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
