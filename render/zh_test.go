package render

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
)

// englishProse is three or more English words in a row, at least two of
// them lower-case words: a phrase, not a name ("GPU", "NCCL"), a package
// ("aws-ofi-nccl") or a term kept in English on purpose ("batch size").
var englishProse = regexp.MustCompile(`(?:^|[^\w.-])([A-Za-z][a-z']*(?:[ ,]+[A-Za-z][a-z']*){2,})(?:$|[^\w.-])`)

func isProse(s string) bool {
	lower := 0
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		if len(w) >= 2 && strings.ToLower(w) == w {
			lower++
		}
	}
	return lower >= 2
}

func hasEnglishProse(s string) bool {
	for _, m := range englishProse.FindAllStringSubmatch(s, -1) {
		if isProse(m[1]) {
			return true
		}
	}
	return false
}

// unquotedText is the page's text outside what is marked as quoted:
// <code>, <pre> and anything with translate="no".
func unquotedText(t *testing.T, page []byte) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(string(page)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "code", "pre", "style", "script", "title":
				return
			}
			for _, a := range n.Attr {
				if a.Key == "translate" && a.Val == "no" {
					return
				}
			}
		}
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			out = append(out, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

var (
	fixtureRepOnce sync.Once
	fixtureReps    map[string]*report.Report
	fixtureRepErr  error
)

// allFixtureReports diagnoses every fixture of the repository once.
func allFixtureReports(t *testing.T) map[string]*report.Report {
	t.Helper()
	fixtureRepOnce.Do(func() {
		d, err := diagnose.New(context.Background(), diagnose.Options{Version: "test"})
		if err != nil {
			fixtureRepErr = err
			return
		}
		dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "expected.yaml"))
		fixtureReps = map[string]*report.Report{}
		for _, e := range dirs {
			dir := filepath.Dir(e)
			if _, err := os.Stat(filepath.Join(dir, "snapshot.yaml")); err != nil {
				continue
			}
			rep, err := d.Diagnose(context.Background(), dir)
			if err != nil {
				continue // a generated fixture that is not there
			}
			fixtureReps[filepath.Base(dir)] = rep
		}
	})
	if fixtureRepErr != nil {
		t.Fatal(fixtureRepErr)
	}
	return fixtureReps
}

// Every fixture's job page in Chinese has no English prose written by
// traindoc: every phrase traindoc writes exists in Chinese, and text
// quoted from the cluster or the logs is marked as quoted.
func TestChineseHasNoEnglishProse(t *testing.T) {
	reps := allFixtureReports(t)
	if len(reps) < 40 {
		t.Fatalf("only %d fixtures diagnosed", len(reps))
	}
	names := make([]string, 0, len(reps))
	for n := range reps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		rep := reps[name]
		for i := range rep.Jobs {
			j := &rep.Jobs[i]
			ruleWrittenEnglish(t, name, j)
			page, err := JobHTML(j, rep, "zh")
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range unquotedText(t, page) {
				for _, sm := range englishProse.FindAllStringSubmatch(text, -1) {
					if m := sm[1]; isProse(m) {
						t.Errorf("%s %s: English in Chinese page: %q in %q", name, j.Key(), m, strings.TrimSpace(text))
					}
				}
			}
		}
	}
}

// ruleWrittenEnglish finds finding parameters that are English phrases a
// rule wrote (no evidence of the job quotes them) inside the Chinese
// message. The renderer marks every parameter as quoted data, so the page
// check above cannot see them. A rule writes its own phrases as an object
// {"en": ..., "zh": ...}: its English half must not reach the Chinese
// message either, and its Chinese half must be there to use.
func ruleWrittenEnglish(t *testing.T, name string, j *report.Job) {
	t.Helper()
	quoted := ""
	for _, f := range j.Findings {
		for _, e := range f.Evidence {
			quoted += "\n" + e.Text + "\n" + strings.Join(e.Before, "\n") + "\n" + strings.Join(e.After, "\n")
		}
	}
	for _, e := range j.Timeline {
		quoted += "\n" + e.Text
	}
	for _, f := range j.Findings {
		for p, v := range f.Params {
			if m, ok := v.(map[string]any); ok && m["en"] != nil {
				if zh, _ := m["zh"].(string); zh == "" {
					t.Errorf("%s %s: rule %s: parameter %s has English but no Chinese: %v", name, j.Key(), f.Rule, p, m)
				}
			}
			for _, s := range nonChineseStrings(v) {
				if !hasEnglishProse(s) || !strings.Contains(f.Message.Zh, s) || strings.Contains(quoted, s) {
					continue
				}
				t.Errorf("%s %s: rule %s puts the English phrase %q (parameter %s) into its Chinese message", name, j.Key(), f.Rule, s, p)
			}
		}
	}
}

// nonChineseStrings are the strings of a parameter value that are not
// its Chinese wording: the value itself, or the strings inside an object
// or list except those under "zh".
func nonChineseStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, nonChineseStrings(x)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, x := range v {
			if k != "zh" {
				out = append(out, nonChineseStrings(x)...)
			}
		}
		return out
	}
	return nil
}
