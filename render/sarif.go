package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// SARIF 2.1.0 output: one run, the rules that produced findings in the tool
// driver, one result per finding located at its job object. Jobs are not
// files, so the location is a logical location; the job's snapshot source
// is recorded as a run property.

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	toolURI      = "https://github.com/traindoc/traindoc"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Language    string            `json:"language"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

// sarifInvocation carries what traindoc could not read or use as
// tool execution notifications, so a code-scanning UI shows them too.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     sarifMessage   `json:"shortDescription"`
	FullDescription      *sarifMessage  `json:"fullDescription,omitempty"`
	Help                 *sarifMessage  `json:"help,omitempty"`
	DefaultConfiguration sarifRuleConf  `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	LogicalLocations []sarifLogical `json:"logicalLocations"`
	Message          *sarifMessage  `json:"message,omitempty"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifLevel maps a traindoc severity to a SARIF level.
func sarifLevel(sev string) string {
	switch sev {
	case report.SeverityCritical, report.SeverityError:
		return "error"
	case report.SeverityWarning:
		return "warning"
	}
	return "note"
}

// jobFQN names a job object the way kubectl resources are usually written.
func jobFQN(j *report.Job) string {
	return j.Namespace + "/" + j.Kind + "/" + j.Name
}

// SARIF renders rep as a SARIF 2.1.0 log in lang.
func SARIF(rep *report.Report, lang, version string) ([]byte, error) {
	lang = NormalizeLang(lang)
	rules := map[string]*sarifRule{}
	for i := range rep.Jobs {
		for _, f := range rep.Jobs[i].Findings {
			r, ok := rules[f.Rule]
			if !ok {
				r = newSARIFRule(&f, lang)
				rules[f.Rule] = r
				continue
			}
			// A rule's default level is its most severe finding; rule
			// severities are fixed in METADATA, so this only matters for
			// reports edited by hand.
			if report.SeverityRank(f.Severity) > report.SeverityRank(r.Properties["severity"].(string)) {
				r.Properties["severity"] = f.Severity
				r.DefaultConfiguration.Level = sarifLevel(f.Severity)
			}
		}
	}
	ids := make([]string, 0, len(rules))
	for id := range rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	index := map[string]int{}
	driver := sarifDriver{Name: "traindoc", Version: versionOf(rep, version), InformationURI: toolURI, Rules: []sarifRule{}}
	for i, id := range ids {
		index[id] = i
		driver.Rules = append(driver.Rules, *rules[id])
	}

	results := []sarifResult{}
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		for _, f := range j.Findings {
			results = append(results, newSARIFResult(j, &f, index[f.Rule], lang))
		}
	}

	props := map[string]any{"schemaVersion": rep.SchemaVersion}
	if rep.CollectedAt != "" {
		props["collectedAt"] = rep.CollectedAt
	}
	if rep.Source != "" {
		props["source"] = rep.Source
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool:        sarifTool{Driver: driver},
			Invocations: sarifInvocations(rep),
			Language:    htmlLang(lang),
			Results:     results,
			Properties:  props,
		}},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(log); err != nil {
		return nil, fmt.Errorf("encode sarif: %w", err)
	}
	return b.Bytes(), nil
}

func newSARIFRule(f *report.Finding, lang string) *sarifRule {
	title := plainLine(f.Title.In(lang))
	if title == "" {
		title = f.Rule
	}
	r := &sarifRule{
		ID:                   f.Rule,
		Name:                 ruleName(f.Rule),
		ShortDescription:     sarifMessage{Text: title},
		DefaultConfiguration: sarifRuleConf{Level: sarifLevel(f.Severity)},
		Properties: map[string]any{
			"severity": f.Severity,
			"category": f.Category,
			"layer":    f.Layer,
			"owner":    f.Owner,
			"tags":     ruleTags(f),
		},
	}
	if rem := strings.TrimSpace(cleanControl(f.Remediation.In(lang))); rem != "" {
		r.Help = &sarifMessage{Text: rem, Markdown: remediationMarkdown(rem)}
	}
	return r
}

// ruleName turns "exec.cuda-oom" into "ExecCudaOom": SARIF names are meant
// to be identifier-like.
func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		if r == '.' || r == '-' || r == '_' || r == ' ' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func ruleTags(f *report.Finding) []string {
	var tags []string
	for _, t := range []string{"traindoc", f.Layer, f.Category, f.Owner} {
		if t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

func newSARIFResult(j *report.Job, f *report.Finding, ruleIndex int, lang string) sarifResult {
	msg := plainLine(f.Message.In(lang))
	if msg == "" {
		msg = plainLine(f.Title.In(lang))
	}
	if msg == "" {
		msg = f.Rule
	}
	props := map[string]any{
		"severity":  f.Severity,
		"category":  f.Category,
		"owner":     f.Owner,
		"job":       j.Key(),
		"kind":      j.Kind,
		"primary":   j.Primary != nil && j.Primary.ID == f.ID,
		"findingId": f.ID,
	}
	if f.FirstSeen != "" {
		props["firstSeen"] = f.FirstSeen
	}
	if f.CausedBy != "" {
		props["causedBy"] = f.CausedBy
	}
	if f.Consequence {
		props["consequence"] = true
	}
	if ev := sarifEvidence(f.Evidence); len(ev) > 0 {
		props["evidence"] = ev
	}
	return sarifResult{
		RuleID:    f.Rule,
		RuleIndex: ruleIndex,
		Level:     sarifLevel(f.Severity),
		Message:   sarifMessage{Text: msg},
		Locations: []sarifLocation{{
			LogicalLocations: []sarifLogical{{
				Name:               j.Name,
				FullyQualifiedName: jobFQN(j),
				Kind:               "resource",
			}},
		}},
		PartialFingerprints: map[string]string{"traindocFinding/v1": f.ID},
		Properties:          props,
	}
}

// plainLine is untrusted text for a plain-text field: control characters
// made visible, whitespace collapsed.
func plainLine(s string) string {
	return strings.Join(strings.Fields(cleanControl(s)), " ")
}

// sarifEvidence keeps the evidence with the result, trimmed like the other
// formats, so a SARIF viewer shows the exact lines behind a finding.
func sarifEvidence(evs []report.Evidence) []map[string]any {
	var out []map[string]any
	for i, e := range evs {
		if i == maxEvidenceItems {
			break
		}
		t := trimEvidence(cleanControl(e.Text))
		m := map[string]any{"kind": e.Kind, "text": t.Text}
		for k, v := range map[string]string{"source": e.Source, "file": e.File, "field": e.Field, "time": e.Time} {
			if v != "" {
				m[k] = cleanControl(v)
			}
		}
		if e.Line > 0 {
			m["line"] = e.Line
		}
		if e.Count > 1 {
			m["count"] = e.Count
		}
		if t.ShownLines < t.TotalLines {
			m["trimmedFromLines"] = t.TotalLines
		}
		out = append(out, m)
	}
	return out
}

func sarifInvocations(rep *report.Report) []sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: true}
	for _, w := range rep.AllWarnings() {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "warning", Message: sarifMessage{Text: w}})
	}
	return []sarifInvocation{inv}
}
