// Package text writes the compact human summary of a report that
// `traindoc diagnose` prints by default: one block per job with its verdict,
// primary cause, evidence and the other findings, then a summary table.
package text

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/traindoc/traindoc/engine/report"
)

// maxLine bounds evidence lines printed to a terminal.
const maxLine = 220

var labels = map[string]map[string]string{
	"en": {"healthy": "HEALTHY", "unhealthy": "UNHEALTHY", "primary": "Primary", "owner": "who acts", "evidence": "Evidence", "fix": "Fix", "also": "Also", "consequence": "consequence", "warnings": "Warnings", "job": "JOB", "kind": "KIND", "phase": "PHASE", "health": "HEALTH", "category": "PRIMARY", "severity": "SEVERITY", "ok": "ok", "bad": "unhealthy", "more": "more"},
	"zh": {"healthy": "健康", "unhealthy": "异常", "primary": "根因", "owner": "负责方", "evidence": "证据", "fix": "处理", "also": "其他", "consequence": "后果", "warnings": "警告", "job": "作业", "kind": "类型", "phase": "阶段", "health": "健康", "category": "根因类别", "severity": "严重性", "ok": "正常", "bad": "异常", "more": "更多"},
}

var owners = map[string]map[string]string{
	"en": {"user": "the job's code or config", "platform": "the platform team", "hardware": "hardware / node operations"},
	"zh": {"user": "作业代码或配置", "platform": "平台团队", "hardware": "硬件 / 节点运维"},
}

// Write prints the report.
func Write(w io.Writer, rep *report.Report, lang string) error {
	if lang != "zh" {
		lang = "en"
	}
	L := labels[lang]
	var b strings.Builder
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		verdict := L["unhealthy"]
		if j.Healthy {
			verdict = L["healthy"]
		}
		fmt.Fprintf(&b, "%s %s/%s  [%s, %s]  %s\n", j.Kind, clean(j.Namespace), clean(j.Name), j.Phase, clean(j.KindPhase), verdict)
		fmt.Fprintf(&b, "  %s\n", clean(j.Summary.In(lang)))
		if p := j.Primary; p != nil && !j.Healthy {
			fmt.Fprintf(&b, "  %s: %s [%s, %s; %s: %s]\n", L["primary"], p.Category, p.Severity, p.Rule, L["owner"], owners[lang][p.Owner])
			fmt.Fprintf(&b, "    %s\n", clean(p.Message.In(lang)))
			for k, ev := range p.Evidence {
				if k == 3 {
					fmt.Fprintf(&b, "    … %d %s\n", len(p.Evidence)-3, L["more"])
					break
				}
				fmt.Fprintf(&b, "    %s %s: %s\n", L["evidence"], clean(ev.Source), trim(clean(ev.Text)))
			}
			fix := strings.Split(strings.TrimSpace(p.Remediation.In(lang)), "\n")
			fmt.Fprintf(&b, "    %s: %s\n", L["fix"], clean(strings.TrimLeft(fix[0], "- ")))
		}
		for k := range j.Findings {
			f := &j.Findings[k]
			if j.Primary != nil && f.ID == j.Primary.ID {
				continue
			}
			mark := ""
			if f.Consequence {
				mark = " (" + L["consequence"] + ")"
			}
			fmt.Fprintf(&b, "  %s: %s [%s]%s %s\n", L["also"], f.Category, f.Severity, mark, clean(f.Title.In(lang)))
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return Table(w, rep, lang)
}

// Table prints one row per job.
func Table(w io.Writer, rep *report.Report, lang string) error {
	L := labels[lang]
	if L == nil {
		L = labels["en"]
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", L["job"], L["kind"], L["phase"], L["health"], L["category"], L["severity"])
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		health, cat, sev := L["bad"], "", ""
		if j.Healthy {
			health = L["ok"]
		}
		if j.Primary != nil {
			cat, sev = j.Primary.Category, j.Primary.Severity
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\t%s\n", clean(j.Namespace), clean(j.Name), j.Kind, j.Phase, health, cat, sev)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeWarnings(w, rep, L)
}

// writeWarnings lists what traindoc could not read or use, for the
// snapshot and for each job: a table must not hide it either.
func writeWarnings(w io.Writer, rep *report.Report, L map[string]string) error {
	ws := rep.AllWarnings()
	if len(ws) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s:\n", L["warnings"])
	for _, wn := range ws {
		fmt.Fprintf(&b, "  %s\n", clean(wn))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clean keeps terminal control characters from untrusted text out of the
// output.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

func trim(s string) string {
	r := []rune(s)
	if len(r) > maxLine {
		return string(r[:maxLine]) + "…"
	}
	return s
}
