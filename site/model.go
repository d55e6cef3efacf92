package site

import (
	"html/template"
	"sort"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

// model is everything the templates show, computed once for both
// languages. Every list in it is sorted, so that the pages come out the
// same for the same input.
type model struct {
	Latest     *report.Report
	Runs       []*report.Report
	Jobs       []*jobView
	Rules      []*ruleView
	Categories []*categoryView
	Layers     []string
	Trends     *trends
	Version    string

	ruleByID map[string]*ruleView
	catByID  map[string]*categoryView
}

// jobView is one job of the latest run with what the index shows.
type jobView struct {
	*report.Job
	Slug string
	// State is healthy, unhealthy, suspended or debug (render.JobState).
	State    string
	Severity string
	Category string
	Owner    string
	Time     string
	// Change is the primary finding's status against the previous run
	// (new or recurring), nil with one run or a healthy job.
	Change *change
	// Findings is the primary finding first, then the others in report
	// order.
	Findings []*report.Finding
}

// ruleView is a rule page. Rule is nil for a rule that findings name but
// the current rule set lacks (reports from another version or policy set).
type ruleView struct {
	ID          string
	Slug        string
	Rule        *policy.Rule
	Title       report.Text
	Description report.Text
	Message     report.Text
	Remediation report.Text
	Category    string
	Layer       string
	Severity    string
	Owner       string
	Source      template.HTML
	Exercised   []string
	Jobs        []*jobView
	// Files are where the rule lives, its example lines and its tests;
	// SourceLines and TestLines are its Rego and its tests as numbered,
	// highlighted lines; Tests are the names of its tests.
	Files       RuleFiles
	SourceLines []template.HTML
	TestLines   []template.HTML
	Tests       []string
}

// categoryView is a category page.
type categoryView struct {
	Name    string
	Slug    string
	Layer   string
	Known   bool
	Rules   []*ruleView
	Jobs    []*jobView
	Primary int
}

var layerOrder = []string{"spec", "control", "execution", "progress", "node"}

func layerRank(l string) int {
	for i, x := range layerOrder {
		if x == l {
			return i
		}
	}
	return len(layerOrder)
}

func newModel(in Input) *model {
	m := &model{
		Runs:     in.Runs,
		Latest:   in.Runs[len(in.Runs)-1],
		Version:  in.Version,
		ruleByID: map[string]*ruleView{},
		catByID:  map[string]*categoryView{},
	}
	if m.Version == "" {
		m.Version = m.Latest.Tool.Version
	}
	if m.Version == "" {
		m.Version = "dev"
	}
	m.buildJobs()
	m.buildRules(in)
	m.buildCategories(in.Categories)
	m.Trends = buildTrends(in.Runs)
	m.markChanges()
	return m
}

// markChanges gives each failing job of the latest run the status of its
// primary finding against the previous run.
func (m *model) markChanges() {
	byKey := map[string]*change{}
	for i := range m.Trends.Changes {
		c := &m.Trends.Changes[i]
		if c.Status != statusResolved {
			byKey[c.JobKey+"\x00"+c.Rule] = c
		}
	}
	for _, j := range m.Jobs {
		if j.Primary == nil || j.State != render.StateUnhealthy {
			continue
		}
		if c := byKey[j.Key()+"\x00"+j.Primary.Rule]; c != nil {
			c.Job = j
			j.Change = c
		}
	}
	for i := range m.Trends.Changes {
		c := &m.Trends.Changes[i]
		if c.Job == nil {
			for _, j := range m.Jobs {
				if j.Key() == c.JobKey {
					c.Job = j
				}
			}
		}
	}
}

func (m *model) buildJobs() {
	jobs := make([]*jobView, 0, len(m.Latest.Jobs))
	for i := range m.Latest.Jobs {
		j := &m.Latest.Jobs[i]
		v := &jobView{Job: j, Time: j.CreatedAt, State: render.JobState(j)}
		if p := j.Primary; p != nil {
			v.Category, v.Owner = p.Category, p.Owner
			if !j.Healthy {
				v.Severity = p.Severity
			}
			if p.FirstSeen != "" {
				v.Time = p.FirstSeen
			}
			v.Findings = append(v.Findings, p)
		}
		if v.Severity == "" && !j.Healthy {
			v.Severity = j.MaxSeverity()
		}
		if j.Healthy && v.Category == "" {
			v.Category = report.CategoryHealthy
		}
		for k := range j.Findings {
			f := &j.Findings[k]
			if j.Primary != nil && f.ID == j.Primary.ID {
				continue
			}
			v.Findings = append(v.Findings, f)
		}
		jobs = append(jobs, v)
	}
	// Worst first: that is what a reader opens the index for; held jobs
	// after failing ones, healthy ones last. Then by name, which is also
	// the order slugs are handed out in.
	stateRank := map[string]int{render.StateUnhealthy: 0, render.StateDebug: 1, render.StateSuspended: 2, render.StateHealthy: 3}
	sort.SliceStable(jobs, func(a, b int) bool {
		x, y := jobs[a], jobs[b]
		if rx, ry := stateRank[x.State], stateRank[y.State]; rx != ry {
			return rx < ry
		}
		if rx, ry := report.SeverityRank(x.Severity), report.SeverityRank(y.Severity); rx != ry {
			return rx > ry
		}
		return nameLess(x, y)
	})
	// Slugs are handed out in name order so that a job keeps its page name
	// when other jobs change health.
	byName := append([]*jobView(nil), jobs...)
	sort.SliceStable(byName, func(a, b int) bool { return nameLess(byName[a], byName[b]) })
	used := slugger{}
	for _, v := range byName {
		v.Slug = used.unique(slug(v.Namespace + "." + v.Name))
	}
	m.Jobs = jobs
}

func (m *model) buildRules(in Input) {
	used := slugger{}
	add := func(v *ruleView) {
		v.Slug = used.unique(slug(v.ID))
		m.ruleByID[v.ID] = v
		m.Rules = append(m.Rules, v)
	}
	files := in.RuleFiles
	if files == nil {
		files = LoadRuleFiles(in.Rules, in.PolicyDirs)
	}
	for _, r := range in.Rules {
		v := &ruleView{
			ID: r.ID, Rule: r, Title: r.Title, Description: r.Description, Message: r.Message,
			Remediation: r.Remediation, Category: r.Category, Layer: r.Layer, Severity: r.Severity,
			Owner: r.Owner, Exercised: sortedCopy(in.Exercised[r.ID]), Files: files[r.ID],
		}
		if r.Source != "" {
			v.SourceLines = numberedLines(r.Source)
		}
		if src := v.Files.TestSource; src != "" {
			v.TestLines = numberedLines(src)
			v.Tests = testNames(src)
		}
		add(v)
	}
	// Rules that findings name but the rule set lacks still get a page, so
	// that every rule link on a job page resolves.
	var missing []*ruleView
	for _, j := range m.Jobs {
		for _, f := range j.Findings {
			if f.Rule == "" || m.ruleByID[f.Rule] != nil {
				continue
			}
			v := &ruleView{ID: f.Rule, Title: f.Title, Remediation: f.Remediation, Category: f.Category,
				Layer: f.Layer, Severity: f.Severity, Owner: f.Owner, Exercised: sortedCopy(in.Exercised[f.Rule])}
			m.ruleByID[f.Rule] = v
			missing = append(missing, v)
		}
	}
	for _, v := range missing {
		delete(m.ruleByID, v.ID)
		add(v)
	}
	sort.SliceStable(m.Rules, func(a, b int) bool { return m.Rules[a].ID < m.Rules[b].ID })
	for _, j := range m.Jobs {
		seen := map[string]bool{}
		for _, f := range j.Findings {
			if r := m.ruleByID[f.Rule]; r != nil && !seen[f.Rule] {
				seen[f.Rule] = true
				r.Jobs = append(r.Jobs, j)
			}
		}
	}
}

func (m *model) buildCategories(taxonomy map[string]string) {
	get := func(name, layer string, known bool) *categoryView {
		if c := m.catByID[name]; c != nil {
			return c
		}
		c := &categoryView{Name: name, Layer: layer, Known: known}
		m.catByID[name] = c
		m.Categories = append(m.Categories, c)
		return c
	}
	for name, layer := range taxonomy {
		get(name, layer, true)
	}
	for _, r := range m.Rules {
		if r.Category != "" {
			c := get(r.Category, r.Layer, false)
			c.Rules = append(c.Rules, r)
		}
	}
	for _, j := range m.Jobs {
		seen := map[string]bool{}
		for _, f := range j.Findings {
			if f.Category == "" || seen[f.Category] {
				continue
			}
			seen[f.Category] = true
			c := get(f.Category, f.Layer, false)
			c.Jobs = append(c.Jobs, j)
		}
		if j.Healthy && !seen[report.CategoryHealthy] {
			c := get(report.CategoryHealthy, "control", false)
			c.Jobs = append(c.Jobs, j)
		}
		if c := m.catByID[j.Category]; c != nil && j.State == render.StateUnhealthy {
			c.Primary++
		}
	}
	sort.Slice(m.Categories, func(a, b int) bool {
		x, y := m.Categories[a], m.Categories[b]
		if lx, ly := layerRank(x.Layer), layerRank(y.Layer); lx != ly {
			return lx < ly
		}
		return x.Name < y.Name
	})
	used := slugger{}
	layers := map[string]bool{}
	for _, c := range m.Categories {
		c.Slug = used.unique(slug(c.Name))
		if !layers[c.Layer] {
			layers[c.Layer] = true
			m.Layers = append(m.Layers, c.Layer)
		}
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

// formatTime is how the site's lists show a time: the reports' own
// parsing, to the minute.
func formatTime(s string) string { return render.FormatTime(s, render.MinuteLayout) }

// shortTime is formatTime without the year, for chart axes.
func shortTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		if len(s) > 10 {
			return s[:10]
		}
		return s
	}
	return t.UTC().Format("01-02 15:04")
}

// distinct returns the sorted distinct non-empty values of f over jobs.
func distinct(jobs []*jobView, f func(*jobView) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, j := range jobs {
		if v := strings.TrimSpace(f(j)); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// nameLess orders jobs by namespace, name, kind and uid.
func nameLess(x, y *jobView) bool {
	if x.Namespace != y.Namespace {
		return x.Namespace < y.Namespace
	}
	if x.Name != y.Name {
		return x.Name < y.Name
	}
	if x.Kind != y.Kind {
		return x.Kind < y.Kind
	}
	return x.UID < y.UID
}
