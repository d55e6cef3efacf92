package site

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

// maxSeries is how many categories get their own line; more colours stop
// being distinguishable, and the data table has every category.
const maxSeries = 6

// maxHotNodes bounds the hot node table.
const maxHotNodes = 30

// Chart geometry in SVG user units; the SVG scales to its container.
const (
	chartW     = 720
	chartH     = 260
	chartLeft  = 44
	chartRight = 16
	chartTop   = 14
	chartBot   = 44
	// chartPad keeps the first and last run off the axes.
	chartPad = 14
	// minLabelGap is the least room between two axis labels.
	minLabelGap = 76
)

// trends is what the trends page shows: how the share of failing jobs
// and of each category moved over real time, what changed since the
// previous run, which nodes keep hosting failures, and roll-ups by
// namespace and cluster.
type trends struct {
	Runs       []runPoint
	Unhealthy  lineChart
	ByCategory lineChart
	// Table rows: every category with a failure in any run.
	Table      []categoryRow
	HotNodes   []hotNode
	Changes    []change
	Namespaces []rollup
	Clusters   []rollup
	// Previous is the time of the run before the latest, "" for one run.
	Previous string
}

type runPoint struct {
	Time      string
	Label     string
	Jobs      int
	Unhealthy int
	Held      int
	// Rate is the share of jobs that are not healthy, in percent.
	Rate float64
}

// lineChart is precomputed geometry: templates only print numbers.
type lineChart struct {
	Series []series
	Ticks  []tick
	Labels []axisLabel
}

type series struct {
	Name   string // category, "" for the unhealthy share
	Class  string // colour class c0..c8
	Path   string // SVG polyline points
	Points []point
}

type point struct {
	X, Y  float64
	Label string // run time
	Value string // "3 / 12 (25%)"
}

type tick struct {
	Y     float64
	Value string
}

type axisLabel struct {
	X    float64
	Text string
}

type categoryRow struct {
	Category string
	Counts   []int
	Rates    []string
	Total    int
}

type hotNode struct {
	Name string
	// Jobs are the distinct jobs (namespace/name) whose failing pods ran
	// on the node, each counted once however many runs it failed in.
	Jobs       []string
	Runs       int
	Categories []string
	LastSeen   string
}

// Finding statuses against the previous run.
const (
	statusNew       = "new"
	statusRecurring = "recurring"
	statusResolved  = "resolved"
)

// change is one fault finding of the latest or the previous run, marked
// new, recurring or resolved.
type change struct {
	Status   string
	JobKey   string
	Job      *jobView // nil when the job is gone from the latest run
	Rule     string
	Title    report.Text
	Category string
	// Streak counts the consecutive runs, up to the latest, with the
	// finding; Since is the first of them.
	Streak int
	Since  string
}

// rollup is one namespace's or cluster's share of failing jobs in the
// latest run, with the previous run's for comparison.
type rollup struct {
	Name      string
	Jobs      int
	Unhealthy int
	Rate      string
	PrevRate  string
	Delta     int // -1 better, 0 same or unknown, 1 worse
}

func buildTrends(runs []*report.Report) *trends {
	t := &trends{}
	counts := map[string][]int{}
	totals := map[string]int{}
	for i, r := range runs {
		p := runPoint{Time: r.CollectedAt, Label: shortTime(r.CollectedAt), Jobs: len(r.Jobs)}
		for k := range r.Jobs {
			j := &r.Jobs[k]
			switch render.JobState(j) {
			case render.StateHealthy:
				continue
			case render.StateUnhealthy:
				p.Unhealthy++
			default:
				p.Held++
				continue
			}
			cat := "unknown"
			if j.Primary != nil && j.Primary.Category != "" {
				cat = j.Primary.Category
			}
			if counts[cat] == nil {
				counts[cat] = make([]int, len(runs))
			}
			counts[cat][i]++
			totals[cat]++
		}
		p.Rate = percent(p.Unhealthy, p.Jobs)
		t.Runs = append(t.Runs, p)
	}
	for cat, c := range counts {
		row := categoryRow{Category: cat, Counts: c, Total: totals[cat]}
		for i, n := range c {
			row.Rates = append(row.Rates, formatPercent(percent(n, t.Runs[i].Jobs)))
		}
		t.Table = append(t.Table, row)
	}
	sort.Slice(t.Table, func(a, b int) bool {
		if t.Table[a].Total != t.Table[b].Total {
			return t.Table[a].Total > t.Table[b].Total
		}
		return t.Table[a].Category < t.Table[b].Category
	})
	t.Unhealthy = unhealthyChart(t.Runs)
	t.ByCategory = categoryChart(t.Runs, t.Table)
	t.HotNodes = hotNodes(runs)
	if len(runs) >= 2 {
		t.Previous = runs[len(runs)-2].CollectedAt
	}
	t.Changes = changes(runs)
	t.Namespaces = rollups(runs, func(j *report.Job) string { return j.Namespace })
	t.Clusters = rollups(runs, func(j *report.Job) string { return j.Cluster })
	return t
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func formatPercent(p float64) string {
	if p > 0 && p < 1 {
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// scale returns a "nice" axis maximum and tick step for max.
func scale(max int) (top, step int) {
	if max <= 0 {
		return 1, 1
	}
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000} {
		if (max+s-1)/s <= 5 {
			return (max + s - 1) / s * s, s
		}
	}
	s := 10000
	return (max + s - 1) / s * s, s
}

// percentScale is the y axis of a share: up to the next nice percentage.
func percentScale(max float64) (top, step int) {
	for _, t := range []int{10, 20, 25, 50, 100} {
		if max <= float64(t) {
			return t, t / 5
		}
	}
	return 100, 20
}

func plotH() float64 { return chartH - chartTop - chartBot }

func yOf(v float64, top int) float64 {
	return round1(chartTop + plotH() - plotH()*v/float64(top))
}

func round1(f float64) float64 {
	// One decimal keeps the SVG small and the output byte-stable.
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 1, 64), 64)
	return v
}

func percentTicks(top, step int) []tick {
	var out []tick
	for v := 0; v <= top; v += step {
		out = append(out, tick{Y: yOf(float64(v), top), Value: strconv.Itoa(v) + "%"})
	}
	return out
}

// timeX places runs by when they were taken, not evenly: a gap of a week
// between runs shows as a gap.
func timeX(runs []runPoint) []float64 {
	xs := make([]float64, len(runs))
	left, right := float64(chartLeft+chartPad), float64(chartW-chartRight-chartPad)
	var ts []time.Time
	ok := true
	for _, r := range runs {
		t, err := time.Parse(time.RFC3339, r.Time)
		if err != nil {
			ok = false
			break
		}
		ts = append(ts, t)
	}
	if !ok || len(runs) < 2 || !ts[len(ts)-1].After(ts[0]) {
		// No usable times: even spacing, in order.
		for i := range runs {
			if len(runs) == 1 {
				xs[i] = round1((left + right) / 2)
				continue
			}
			xs[i] = round1(left + (right-left)*float64(i)/float64(len(runs)-1))
		}
		return xs
	}
	span := ts[len(ts)-1].Sub(ts[0]).Seconds()
	for i, t := range ts {
		xs[i] = round1(left + (right-left)*t.Sub(ts[0]).Seconds()/span)
	}
	return xs
}

// axisLabels labels runs along the time axis, skipping a label that would
// overlap the one before; the latest run is always labelled.
func axisLabels(runs []runPoint, xs []float64) []axisLabel {
	var out []axisLabel
	for i, r := range runs {
		l := axisLabel{X: xs[i], Text: r.Label}
		if n := len(out); n > 0 && l.X-out[n-1].X < minLabelGap {
			if i != len(runs)-1 {
				continue
			}
			out = out[:n-1]
		}
		out = append(out, l)
	}
	return out
}

func polyline(ps []point) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(p.X, 'f', -1, 64) + "," + strconv.FormatFloat(p.Y, 'f', -1, 64))
	}
	return b.String()
}

func unhealthyChart(runs []runPoint) lineChart {
	max := 0.0
	for _, r := range runs {
		max = maxf(max, r.Rate)
	}
	top, step := percentScale(max)
	xs := timeX(runs)
	c := lineChart{Ticks: percentTicks(top, step), Labels: axisLabels(runs, xs)}
	s := series{Class: "bad"}
	for i, r := range runs {
		s.Points = append(s.Points, point{
			X: xs[i], Y: yOf(r.Rate, top), Label: r.Label,
			Value: strconv.Itoa(r.Unhealthy) + " / " + strconv.Itoa(r.Jobs) + " (" + formatPercent(r.Rate) + ")",
		})
	}
	s.Path = polyline(s.Points)
	c.Series = []series{s}
	return c
}

func categoryChart(runs []runPoint, rows []categoryRow) lineChart {
	named := rows
	if len(named) > maxSeries {
		named = named[:maxSeries]
	}
	max := 0.0
	for _, row := range named {
		for i, n := range row.Counts {
			max = maxf(max, percent(n, runs[i].Jobs))
		}
	}
	top, step := percentScale(max)
	xs := timeX(runs)
	c := lineChart{Ticks: percentTicks(top, step), Labels: axisLabels(runs, xs)}
	for k, row := range named {
		s := series{Name: row.Category, Class: "c" + strconv.Itoa(k)}
		for i, n := range row.Counts {
			s.Points = append(s.Points, point{
				X: xs[i], Y: yOf(percent(n, runs[i].Jobs), top), Label: runs[i].Label,
				Value: strconv.Itoa(n) + " / " + strconv.Itoa(runs[i].Jobs) + " (" + row.Rates[i] + ")",
			})
		}
		s.Path = polyline(s.Points)
		c.Series = append(c.Series, s)
	}
	return c
}

func maxf(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// failingNodes are the nodes that ran a failing job's failing pods: the
// pod table's failing rows, else (reports without one) the nodes its
// fault findings name, else the job's nodes.
func failingNodes(j *report.Job) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, p := range j.Pods {
		if p.Failing {
			add(p.Node)
		}
	}
	if len(j.Pods) == 0 {
		for _, f := range j.Findings {
			if f.Risk || f.Acknowledged || f.Category == report.CategoryHealthy {
				continue
			}
			for _, s := range f.Subjects {
				add(s.Node)
			}
		}
		if len(out) == 0 {
			for _, n := range j.Nodes {
				add(n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// hotNodes finds nodes that ran failing pods of two or more distinct jobs
// over all runs. A job counts once however many runs it failed in: one
// job failing every hour on a node says something about the job, two jobs
// failing on it say something about the node.
func hotNodes(runs []*report.Report) []hotNode {
	type acc struct {
		jobs map[string]bool
		runs map[int]bool
		cats map[string]bool
		last string
	}
	nodes := map[string]*acc{}
	for i, r := range runs {
		for k := range r.Jobs {
			j := &r.Jobs[k]
			if render.JobState(j) != render.StateUnhealthy {
				continue
			}
			for _, n := range failingNodes(j) {
				a := nodes[n]
				if a == nil {
					a = &acc{jobs: map[string]bool{}, runs: map[int]bool{}, cats: map[string]bool{}}
					nodes[n] = a
				}
				a.jobs[j.Key()] = true
				a.runs[i] = true
				a.last = r.CollectedAt
				if j.Primary != nil && j.Primary.Category != "" {
					a.cats[j.Primary.Category] = true
				}
			}
		}
	}
	var out []hotNode
	for name, a := range nodes {
		if len(a.jobs) < 2 {
			continue
		}
		out = append(out, hotNode{Name: name, Jobs: slices.Sorted(maps.Keys(a.jobs)), Runs: len(a.runs), Categories: slices.Sorted(maps.Keys(a.cats)), LastSeen: a.last})
	}
	sort.Slice(out, func(a, b int) bool {
		if len(out[a].Jobs) != len(out[b].Jobs) {
			return len(out[a].Jobs) > len(out[b].Jobs)
		}
		if out[a].Runs != out[b].Runs {
			return out[a].Runs > out[b].Runs
		}
		return out[a].Name < out[b].Name
	})
	if len(out) > maxHotNodes {
		out = out[:maxHotNodes]
	}
	return out
}

// faultKey identifies a finding across runs: the job and the rule.
func faultKey(j *report.Job, f *report.Finding) string { return j.Key() + "\x00" + f.Rule }

// faults are a run's counted fault findings by key.
func faults(r *report.Report) map[string]*report.Finding {
	out := map[string]*report.Finding{}
	for k := range r.Jobs {
		j := &r.Jobs[k]
		if render.JobState(j) != render.StateUnhealthy {
			continue
		}
		for i := range j.Findings {
			f := &j.Findings[i]
			if f.Risk || f.Acknowledged || f.Consequence || f.Category == report.CategoryHealthy {
				continue
			}
			out[faultKey(j, f)] = f
		}
	}
	return out
}

// changes marks each root fault of the latest run new or recurring, and
// each of the previous run that is gone resolved.
func changes(runs []*report.Report) []change {
	if len(runs) < 2 {
		return nil
	}
	sets := make([]map[string]*report.Finding, len(runs))
	for i, r := range runs {
		sets[i] = faults(r)
	}
	last, prev := len(runs)-1, len(runs)-2
	latest := runs[last]
	var out []change
	for k := range latest.Jobs {
		j := &latest.Jobs[k]
		for i := range j.Findings {
			f := &j.Findings[i]
			key := faultKey(j, f)
			if sets[last][key] == nil {
				continue
			}
			c := change{Status: statusNew, JobKey: j.Key(), Rule: f.Rule, Title: f.Title, Category: f.Category, Streak: 1, Since: latest.CollectedAt}
			for r := last - 1; r >= 0 && sets[r][key] != nil; r-- {
				c.Status, c.Streak, c.Since = statusRecurring, c.Streak+1, runs[r].CollectedAt
			}
			out = append(out, c)
		}
	}
	keysPrev := make([]string, 0, len(sets[prev]))
	for key := range sets[prev] {
		keysPrev = append(keysPrev, key)
	}
	sort.Strings(keysPrev)
	for _, key := range keysPrev {
		if sets[last][key] != nil {
			continue
		}
		f := sets[prev][key]
		jobKey, _, _ := strings.Cut(key, "\x00")
		out = append(out, change{Status: statusResolved, JobKey: jobKey, Rule: f.Rule, Title: f.Title, Category: f.Category, Since: runs[prev].CollectedAt})
	}
	order := map[string]int{statusNew: 0, statusRecurring: 1, statusResolved: 2}
	sort.SliceStable(out, func(a, b int) bool {
		if order[out[a].Status] != order[out[b].Status] {
			return order[out[a].Status] < order[out[b].Status]
		}
		if out[a].JobKey != out[b].JobKey {
			return out[a].JobKey < out[b].JobKey
		}
		return out[a].Rule < out[b].Rule
	})
	return out
}

// rollups sums the latest run's jobs by a key (namespace, cluster), with
// the previous run's share for comparison.
func rollups(runs []*report.Report, key func(*report.Job) string) []rollup {
	type count struct{ jobs, bad int }
	tally := func(r *report.Report) map[string]*count {
		m := map[string]*count{}
		for k := range r.Jobs {
			j := &r.Jobs[k]
			name := key(j)
			c := m[name]
			if c == nil {
				c = &count{}
				m[name] = c
			}
			c.jobs++
			if render.JobState(j) == render.StateUnhealthy {
				c.bad++
			}
		}
		return m
	}
	latest := tally(runs[len(runs)-1])
	var prev map[string]*count
	if len(runs) >= 2 {
		prev = tally(runs[len(runs)-2])
	}
	var out []rollup
	for name, c := range latest {
		r := rollup{Name: name, Jobs: c.jobs, Unhealthy: c.bad, Rate: formatPercent(percent(c.bad, c.jobs))}
		if p := prev[name]; p != nil {
			r.PrevRate = formatPercent(percent(p.bad, p.jobs))
			now, before := percent(c.bad, c.jobs), percent(p.bad, p.jobs)
			switch {
			case now > before:
				r.Delta = 1
			case now < before:
				r.Delta = -1
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Unhealthy != out[b].Unhealthy {
			return out[a].Unhealthy > out[b].Unhealthy
		}
		return out[a].Name < out[b].Name
	})
	return out
}
