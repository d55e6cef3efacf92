package render

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// JUnit output: one test case per job, one failure per finding that fails
// the --fail-on gate (report.Job.Failing, the definition the exit code
// uses). Without a gate nothing fails, exactly as the exit code is then 0;
// each job's verdict is in its system-out. CI systems show a failed test
// per broken job, with the cause in the failure message.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
	SystemErr  string          `xml:"system-err,omitempty"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string         `xml:"name,attr"`
	ClassName string         `xml:"classname,attr"`
	Time      string         `xml:"time,attr"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
	SystemErr string         `xml:"system-err,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// JUnit renders rep as JUnit XML in lang; findings at or above failOn are
// failures.
func JUnit(rep *report.Report, lang, failOn string) ([]byte, error) {
	lang = NormalizeLang(lang)
	if failOn != "" && !report.ValidSeverity(failOn) {
		return nil, fmt.Errorf("junit: unknown --fail-on severity %q", failOn)
	}
	suite := junitSuite{Name: "traindoc", Time: "0"}
	if rep.CollectedAt != "" {
		suite.Timestamp = rep.CollectedAt
	}
	props := []junitProp{{Name: "fail-on", Value: cmp.Or(failOn, "none")}, {Name: "traindoc.version", Value: versionOf(rep, "")}}
	if rep.Source != "" {
		props = append(props, junitProp{Name: "source", Value: xmlSafe(rep.Source)})
	}
	suite.Properties = &junitProps{Props: props}
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		tc := junitTestCase{
			Name:      xmlSafe(j.Kind + "/" + j.Name),
			ClassName: xmlSafe(j.Namespace),
			Time:      "0",
		}
		for _, f := range j.Failing(failOn) {
			tc.Failures = append(tc.Failures, junitFailureFor(j, f, lang))
		}
		if len(j.Warnings) > 0 {
			tc.SystemErr = xmlSafe(strings.Join(j.Warnings, "\n"))
		}
		if len(tc.Failures) > 0 {
			suite.Failures++
		} else {
			out := T(lang, "junit.healthy")
			if !j.Healthy && j.Primary != nil {
				out = j.Primary.Severity + ": " + plainLine(j.Primary.Title.In(lang))
			}
			tc.SystemOut = xmlSafe(out)
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, tc)
	}
	if len(rep.Warnings) > 0 {
		suite.SystemErr = xmlSafe(strings.Join(rep.Warnings, "\n"))
	}
	doc := junitSuites{Name: "traindoc", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode junit: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func junitFailureFor(j *report.Job, f *report.Finding, lang string) junitFailure {
	title := plainLine(f.Title.In(lang))
	msg := fmt.Sprintf("[%s] %s: %s", f.Severity, f.Rule, title)
	var body strings.Builder
	if j.Primary != nil && j.Primary.ID == f.ID {
		fmt.Fprintf(&body, "%s\n", T(lang, "finding.primary"))
	}
	if f.CausedBy != "" {
		fmt.Fprintf(&body, "%s\n", Tf(lang, "finding.consequence", "id", f.CausedBy))
	}
	if m := plainLine(f.Message.In(lang)); m != "" {
		fmt.Fprintf(&body, "%s\n", m)
	}
	for i, e := range f.Evidence {
		if i == maxEvidenceItems {
			fmt.Fprintf(&body, "\n%s\n", Tf(lang, "evidence.more", "n", strconv.Itoa(len(f.Evidence)-maxEvidenceItems)))
			break
		}
		fmt.Fprintf(&body, "\n--- %s", e.Kind)
		if e.Source != "" {
			fmt.Fprintf(&body, " · %s", plainLine(e.Source))
		}
		if e.File != "" {
			fmt.Fprintf(&body, " · %s", plainLine(e.File))
			if e.Line > 0 {
				fmt.Fprintf(&body, ":%d", e.Line)
			}
		}
		if e.Time != "" {
			fmt.Fprintf(&body, " · %s", formatTime(e.Time))
		}
		body.WriteString("\n")
		t := trimEvidence(cleanControl(e.Text))
		body.WriteString(t.Text)
		body.WriteString("\n")
		if t.ShownLines < t.TotalLines {
			fmt.Fprintf(&body, "%s\n", Tf(lang, "evidence.trimmed", "n", strconv.Itoa(t.TotalLines-t.ShownLines)))
		}
	}
	if rem := strings.TrimSpace(f.Remediation.In(lang)); rem != "" {
		fmt.Fprintf(&body, "\n%s:\n%s\n", T(lang, "finding.remediation"), cleanControl(rem))
	}
	return junitFailure{Message: xmlSafe(msg), Type: f.Severity, Body: xmlSafe(body.String())}
}

// xmlSafe drops characters XML 1.0 cannot carry at all; encoding/xml
// escapes the rest.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
