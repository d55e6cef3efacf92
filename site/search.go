package site

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/traindoc/traindoc/render"
)

// maxSearchText bounds the text indexed per job, so that the index stays
// small with thousands of jobs; names, summary and finding titles come
// first, quoted evidence last.
const maxSearchText = 6000

// maxEvidenceText bounds the quoted log and event text indexed per job.
const maxEvidenceText = 3000

// searchEntry is one searchable page. URLs are relative to the language
// folder, where the index page that loads the script lives.
type searchEntry struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Sub   string `json:"sub,omitempty"`
	Text  string `json:"text"`
}

// searchIndex writes assets/search-index.<lang>.js: a classic script that
// assigns the entries to a global. Browsers refuse fetch() of JSON from
// file://, but load scripts, so this is what makes search work from a
// downloaded artifact.
func searchIndex(m *model, lang string) ([]byte, error) {
	// The text holds both languages, page language first: teams mix
	// languages, and a Chinese error word should find the job from the
	// English index too. Titles stay in the page language.
	other := "zh"
	if lang == "zh" {
		other = "en"
	}
	var entries []searchEntry
	for _, j := range m.Jobs {
		text := joinNonEmpty(jobSearchParts(j, lang, other))
		if ev := clip(joinNonEmpty(evidenceParts(j)), maxEvidenceText); ev != "" {
			text = clip(text, maxSearchText-len(ev)-3) + " · " + ev
		}
		entries = append(entries, searchEntry{
			Type: "job", ID: j.Slug, URL: "jobs/" + j.Slug + ".html",
			Title: j.Namespace + "/" + j.Name, Sub: j.Kind, Text: clip(text, maxSearchText),
		})
	}
	for _, r := range m.Rules {
		entries = append(entries, searchEntry{
			Type: "rule", ID: r.Slug, URL: "rules/" + r.Slug + ".html",
			Title: cmp.Or(r.Title.In(lang), r.ID), Sub: r.ID,
			Text: clip(joinNonEmpty([]string{r.ID, r.Category, categoryLabel(lang, r.Category), r.Description.In(lang),
				r.Title.In(other), categoryLabel(other, r.Category), r.Description.In(other)}), maxSearchText),
		})
	}
	for _, c := range m.Categories {
		entries = append(entries, searchEntry{
			Type: "category", ID: c.Slug, URL: "categories/" + c.Slug + ".html",
			Title: categoryLabel(lang, c.Name), Sub: c.Name, Text: joinNonEmpty([]string{c.Name, categoryLabel(other, c.Name)}),
		})
	}
	var b bytes.Buffer
	b.WriteString("// Search index of the traindoc site (" + lang + "); generated, do not edit.\n")
	b.WriteString("window.TRAINDOC_SEARCH = ")
	enc := json.NewEncoder(&b)
	// HTML escaping stays on: it costs nothing and keeps "</script>" in
	// data from meaning anything should the index ever be inlined.
	if err := enc.Encode(entries); err != nil {
		return nil, fmt.Errorf("build site: search index: %w", err)
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	return append(out, ";\n"...), nil
}

// jobSearchParts is what finds a job: its names and state in both
// languages, its findings' titles, rules and categories, the pods and
// nodes they name, exit codes and reasons.
func jobSearchParts(j *jobView, lang, other string) []string {
	parts := []string{j.Kind, j.Namespace, j.Name, j.Phase, j.KindPhase, j.Cluster,
		render.StateLabel(lang, j.State), render.StateLabel(other, j.State), j.SummaryIn(lang)}
	for _, f := range j.Findings {
		parts = append(parts, f.Title.In(lang), f.Rule, f.Category, categoryLabel(lang, f.Category), f.Message.In(lang))
	}
	parts = append(parts, j.SummaryIn(other))
	for _, f := range j.Findings {
		parts = append(parts, f.Title.In(other), categoryLabel(other, f.Category), f.Message.In(other))
		for _, s := range f.Subjects {
			parts = append(parts, s.Name, s.Node)
		}
		for _, k := range slices.Sorted(maps.Keys(f.Params)) {
			if s, ok := f.Params[k].(string); ok {
				parts = append(parts, s)
			}
		}
	}
	for _, p := range j.Pods {
		parts = append(parts, p.Name, p.Node, p.State)
		if p.ExitCode != nil {
			code := strconv.Itoa(*p.ExitCode)
			parts = append(parts, "exit "+code, code)
		}
	}
	for _, e := range j.Timeline {
		if e.Warning {
			parts = append(parts, e.Reason)
		}
	}
	return append(parts, j.Nodes...)
}

// evidenceParts are the quoted lines of the job's findings: the log and
// event text a reader pastes into the search box (an exception name, an
// error code).
func evidenceParts(j *jobView) []string {
	var parts []string
	for _, f := range j.Findings {
		for _, e := range f.Evidence {
			lines := strings.Split(strings.TrimSpace(e.Text), "\n")
			if len(lines) > 3 {
				lines = lines[len(lines)-3:]
			}
			parts = append(parts, lines...)
		}
	}
	return parts
}

func joinNonEmpty(parts []string) string {
	var keep []string
	seen := map[string]bool{}
	for _, p := range parts {
		p = strings.Join(strings.Fields(p), " ")
		if p != "" && !seen[p] {
			seen[p] = true
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " · ")
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
