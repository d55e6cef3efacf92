// Package site builds the static site a CI job publishes after each run:
// an index of every job with filters and offline search, one page per job,
// the rule catalogue, one page per category, and trends over several runs,
// in English and Chinese. The output is plain files with relative links
// only, so it works from file:// (a downloaded CI artifact) and from any
// static host, and the same input always gives the same bytes.
package site

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

// Input is everything a site is built from.
type Input struct {
	// Runs are diagnosis runs; the newest feeds the index, job and
	// category pages, all of them feed the trends. Build sorts them by
	// collectedAt.
	Runs []*report.Report
	// Rules is the rule catalogue: built-in rules and user policies.
	Rules []*policy.Rule
	// Categories maps each taxonomy category to its layer.
	Categories map[string]string
	// Exercised maps a rule ID to the snapshot directories whose jobs had
	// a finding of it.
	Exercised map[string][]string
	// Version is the traindoc version that builds the site; the newest
	// report's version is used when empty.
	Version string
	// PolicyDirs are the --policies directories, so that rule pages name
	// a user rule's file relative to its directory, never by an absolute
	// path.
	PolicyDirs []string
	// RuleFiles are each rule's path, example lines and tests, by rule
	// ID (see LoadRuleFiles); Render loads them when nil.
	RuleFiles map[string]RuleFiles
}

// Files maps slash-separated paths inside the output folder to contents.
type Files map[string][]byte

// Paths returns the file paths in sorted order.
func (f Files) Paths() []string {
	out := make([]string, 0, len(f))
	for p := range f {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/site.css assets/site.js
var assetFS embed.FS

// SortRuns orders runs oldest first by collectedAt. The sort is stable so
// runs with the same time keep the order they were given in.
func SortRuns(runs []*report.Report) {
	sort.SliceStable(runs, func(a, b int) bool { return runs[a].CollectedAt < runs[b].CollectedAt })
}

// Render builds every file of the site in memory.
func Render(in Input) (Files, error) {
	if len(in.Runs) == 0 {
		return nil, errors.New("build site: no report to build from")
	}
	for i, r := range in.Runs {
		if r == nil {
			return nil, fmt.Errorf("build site: run %d is empty", i)
		}
	}
	runs := append([]*report.Report(nil), in.Runs...)
	SortRuns(runs)
	in.Runs = runs
	m := newModel(in)
	tpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	files := Files{}
	css, err := assetFS.ReadFile("assets/site.css")
	if err != nil {
		return nil, fmt.Errorf("build site: %w", err)
	}
	// The report stylesheet styles the job reports; the site's own rules
	// come after it and win where they overlap.
	files["assets/site.css"] = append([]byte(render.Stylesheet()+"\n"), css...)
	if files["assets/site.js"], err = assetFS.ReadFile("assets/site.js"); err != nil {
		return nil, fmt.Errorf("build site: %w", err)
	}
	files[marker] = []byte("This folder was written by `traindoc site`; the next build replaces it.\n")
	if err := renderPage(tpl, files, "root", "index.html", "en", "traindoc", m, nil); err != nil {
		return nil, err
	}
	for _, lang := range languages {
		if err := renderLanguage(tpl, files, m, lang); err != nil {
			return nil, err
		}
		idx, err := searchIndex(m, lang)
		if err != nil {
			return nil, err
		}
		files["assets/search-index."+lang+".js"] = idx
	}
	for p := range files {
		if !safeJoin(p) {
			return nil, fmt.Errorf("build site: refusing to write outside the output folder: %q", p)
		}
	}
	return files, nil
}

func renderLanguage(tpl map[string]*template.Template, files Files, m *model, lang string) error {
	p := func(rel string) string { return lang + "/" + rel }
	if err := renderPage(tpl, files, "index", p("index.html"), lang, label(lang, "index.title"), m, m); err != nil {
		return err
	}
	for _, j := range m.Jobs {
		body, err := jobBody(m, j, lang)
		if err != nil {
			return err
		}
		data := struct {
			Job  *jobView
			Body template.HTML
		}{j, body}
		title := j.Kind + " " + j.Namespace + "/" + j.Name
		if err := renderPage(tpl, files, "job", p("jobs/"+j.Slug+".html"), lang, title, m, data); err != nil {
			return err
		}
	}
	if err := renderPage(tpl, files, "rules", p("rules/index.html"), lang, label(lang, "rules.title"), m, m); err != nil {
		return err
	}
	for _, r := range m.Rules {
		title := r.ID
		if t := r.Title.In(lang); t != "" {
			title = t + " (" + r.ID + ")"
		}
		if err := renderPage(tpl, files, "rule", p("rules/"+r.Slug+".html"), lang, title, m, r); err != nil {
			return err
		}
	}
	if err := renderPage(tpl, files, "categories", p("categories/index.html"), lang, label(lang, "categories.title"), m, m); err != nil {
		return err
	}
	for _, c := range m.Categories {
		title := categoryLabel(lang, c.Name) + " (" + c.Name + ")"
		if err := renderPage(tpl, files, "category", p("categories/"+c.Slug+".html"), lang, title, m, c); err != nil {
			return err
		}
	}
	return renderPage(tpl, files, "trends", p("trends.html"), lang, label(lang, "trends.title"), m, m.Trends)
}

func renderPage(tpl map[string]*template.Template, files Files, name, rel, lang, title string, m *model, data any) error {
	t := tpl[name]
	if t == nil {
		return fmt.Errorf("build site: no template %q", name)
	}
	pg := &page{Lang: lang, Path: rel, Title: title, Site: m, Data: data}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", pg); err != nil {
		return fmt.Errorf("build site: page %s: %w", rel, err)
	}
	files[rel] = b.Bytes()
	return nil
}

// jobBody is the job's report rendered by the report renderer, with rule
// IDs and categories turned into links to their pages.
func jobBody(m *model, j *jobView, lang string) (template.HTML, error) {
	frag, err := render.MarkdownToHTML(render.JobMarkdown(j.Job, m.Latest, lang))
	if err != nil {
		return "", fmt.Errorf("build site: job %s: %w", j.Key(), err)
	}
	// The report shows rule IDs and categories as code spans. The IDs are
	// escaped the way the Markdown renderer escapes code, so only its own
	// output matches; text inside evidence is escaped and cannot.
	var pairs []string
	const code = `<code translate="no">`
	for _, r := range m.Rules {
		pairs = append(pairs, code+template.HTMLEscapeString(r.ID)+"</code>",
			`<a class="rule-link" href="../rules/`+r.Slug+`.html">`+code+template.HTMLEscapeString(r.ID)+`</code></a>`)
	}
	for _, c := range m.Categories {
		pairs = append(pairs, code+template.HTMLEscapeString(c.Name)+"</code>",
			`<a class="cat-link" href="../categories/`+c.Slug+`.html">`+code+template.HTMLEscapeString(c.Name)+`</code></a>`)
	}
	linked := strings.NewReplacer(pairs...).Replace(string(frag))
	// Safe: goldmark output with raw HTML disabled, plus links whose
	// targets are slugs.
	return template.HTML(linked), nil
}

func parseTemplates() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"add":  func(a, b int) int { return a + b },
		"pct":  formatPercent,
		"join": strings.Join,
		"kv":   kv,
		"md":   markdown,
		"csp":  cspAttr,
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("build site: parse layout: %w", err)
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"root", "index", "job", "rules", "rule", "categories", "category", "trends"} {
		t, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("build site: %w", err)
		}
		if _, err := t.ParseFS(templateFS, "templates/"+name+".html"); err != nil {
			return nil, fmt.Errorf("build site: parse %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// kv builds the argument map of a sub-template from name, value pairs.
func kv(pairs ...any) (map[string]any, error) {
	if len(pairs)%2 != 0 {
		return nil, errors.New("kv: odd number of arguments")
	}
	m := make(map[string]any, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		k, ok := pairs[i].(string)
		if !ok {
			return nil, fmt.Errorf("kv: key %v is not a string", pairs[i])
		}
		m[k] = pairs[i+1]
	}
	return m, nil
}

// markdown renders rule-authored Markdown (remediations) with the report's
// renderer, which drops raw HTML and unsafe links.
func markdown(s string) (template.HTML, error) {
	out, err := render.MarkdownToHTML([]byte(s))
	if err != nil {
		return "", err
	}
	// Safe: goldmark output with raw HTML disabled.
	return template.HTML(out), nil
}
