package site

import (
	"sort"
	"strconv"

	"github.com/traindoc/traindoc/engine/report"
)

// maxSeries is how many categories get their own colour in the stacked
// chart; the rest are summed as "other". More colours stop being
// distinguishable, and the data table below the chart has every category.
const maxSeries = 8

// Chart geometry in SVG user units; the SVG scales to its container.
const (
	chartW     = 720
	chartH     = 260
	chartLeft  = 40
	chartRight = 10
	chartTop   = 12
	chartBot   = 44
)

// trends is what the trends page shows.
type trends struct {
	Runs       []runPoint
	Unhealthy  barChart
	ByCategory stackedChart
	// Table rows: every category with a failure in any run.
	Table    []categoryRow
	HotNodes []hotNode
}

type runPoint struct {
	Time      string
	Label     string
	Jobs      int
	Unhealthy int
}

// barChart is precomputed geometry: templates only print numbers.
type barChart struct {
	Bars   []bar
	Ticks  []tick
	Labels []axisLabel
}

type bar struct {
	X, W         float64
	TotalY       float64
	TotalH       float64
	Y, H         float64
	Value, Total int
	Label        string
}

type tick struct {
	Y     float64
	Value int
}

type axisLabel struct {
	X    float64
	Text string
}

type stackedChart struct {
	Series []series
	Ticks  []tick
	Labels []axisLabel
	// Cols are the runs: X, W and one segment per series (bottom up).
	Cols []stackCol
}

type series struct {
	Name  string // category, "" for other
	Class string // colour class c0..c8
}

type stackCol struct {
	X, W  float64
	Label string
	Total int
	Segs  []segment
}

type segment struct {
	Y, H  float64
	Value int
	Name  string
	Class string
}

type categoryRow struct {
	Category string
	Counts   []int
	Total    int
}

type hotNode struct {
	Name string
	// Hits counts failed jobs over all runs (a job failing in two runs
	// counts twice).
	Hits       int
	Jobs       []string
	Runs       int
	Categories []string
}

func buildTrends(runs []*report.Report) *trends {
	t := &trends{}
	counts := map[string][]int{}
	totals := map[string]int{}
	for i, r := range runs {
		p := runPoint{Time: r.CollectedAt, Label: shortTime(r.CollectedAt), Jobs: len(r.Jobs)}
		for k := range r.Jobs {
			j := &r.Jobs[k]
			if j.Healthy {
				continue
			}
			p.Unhealthy++
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
		t.Runs = append(t.Runs, p)
	}
	for cat, c := range counts {
		t.Table = append(t.Table, categoryRow{Category: cat, Counts: c, Total: totals[cat]})
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
	return t
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

func plotH() float64 { return chartH - chartTop - chartBot }

func yOf(v, top int) float64 {
	return round1(chartTop + plotH() - plotH()*float64(v)/float64(top))
}

func round1(f float64) float64 {
	// One decimal keeps the SVG small and the output byte-stable.
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 1, 64), 64)
	return v
}

func ticks(top, step int) []tick {
	var out []tick
	for v := 0; v <= top; v += step {
		out = append(out, tick{Y: yOf(v, top), Value: v})
	}
	return out
}

// columns lays out n columns over the plot width.
func columns(n int) (x func(i int) float64, w float64) {
	plotW := float64(chartW - chartLeft - chartRight)
	slot := plotW / float64(n)
	w = slot * 0.62
	if w > 56 {
		w = 56
	}
	return func(i int) float64 { return round1(chartLeft + slot*float64(i) + (slot-w)/2) }, round1(w)
}

// axisLabels thins axis labels so they do not overlap: at most about 12.
func axisLabels(runs []runPoint, x func(int) float64, w float64) []axisLabel {
	every := (len(runs) + 11) / 12
	var out []axisLabel
	for i, r := range runs {
		if i%every != 0 && i != len(runs)-1 {
			continue
		}
		out = append(out, axisLabel{X: round1(x(i) + w/2), Text: r.Label})
	}
	return out
}

func unhealthyChart(runs []runPoint) barChart {
	max := 0
	for _, r := range runs {
		if r.Jobs > max {
			max = r.Jobs
		}
	}
	top, step := scale(max)
	x, w := columns(len(runs))
	c := barChart{Ticks: ticks(top, step), Labels: axisLabels(runs, x, w)}
	for i, r := range runs {
		ty, y := yOf(r.Jobs, top), yOf(r.Unhealthy, top)
		base := yOf(0, top)
		c.Bars = append(c.Bars, bar{
			X: x(i), W: w, TotalY: ty, TotalH: round1(base - ty), Y: y, H: round1(base - y),
			Value: r.Unhealthy, Total: r.Jobs, Label: r.Label,
		})
	}
	return c
}

func categoryChart(runs []runPoint, rows []categoryRow) stackedChart {
	var c stackedChart
	named := rows
	var other []categoryRow
	if len(rows) > maxSeries {
		named, other = rows[:maxSeries], rows[maxSeries:]
	}
	for i, r := range named {
		c.Series = append(c.Series, series{Name: r.Category, Class: "c" + strconv.Itoa(i)})
	}
	if len(other) > 0 {
		c.Series = append(c.Series, series{Name: "", Class: "c" + strconv.Itoa(maxSeries)})
	}
	max := 0
	for _, r := range runs {
		if r.Unhealthy > max {
			max = r.Unhealthy
		}
	}
	top, step := scale(max)
	c.Ticks = ticks(top, step)
	x, w := columns(len(runs))
	c.Labels = axisLabels(runs, x, w)
	for i, r := range runs {
		col := stackCol{X: x(i), W: w, Label: r.Label, Total: r.Unhealthy}
		acc := 0
		push := func(v int, s series) {
			if v == 0 {
				return
			}
			y0, y1 := yOf(acc, top), yOf(acc+v, top)
			col.Segs = append(col.Segs, segment{Y: y1, H: round1(y0 - y1), Value: v, Name: s.Name, Class: s.Class})
			acc += v
		}
		for k, row := range named {
			push(row.Counts[i], c.Series[k])
		}
		if len(other) > 0 {
			sum := 0
			for _, row := range other {
				sum += row.Counts[i]
			}
			push(sum, c.Series[len(c.Series)-1])
		}
		c.Cols = append(c.Cols, col)
	}
	return c
}

// hotNodes finds nodes that ran pods of more than one failed job over all
// runs. The same job failing in several runs counts once per run: a node
// that keeps killing the same job is as suspicious as one killing many.
func hotNodes(runs []*report.Report) []hotNode {
	type acc struct {
		jobs map[string]bool
		runs map[int]bool
		cats map[string]bool
		hits int
	}
	nodes := map[string]*acc{}
	for i, r := range runs {
		for k := range r.Jobs {
			j := &r.Jobs[k]
			if j.Healthy {
				continue
			}
			seen := map[string]bool{}
			for _, n := range j.Nodes {
				if n == "" || seen[n] {
					continue
				}
				seen[n] = true
				a := nodes[n]
				if a == nil {
					a = &acc{jobs: map[string]bool{}, runs: map[int]bool{}, cats: map[string]bool{}}
					nodes[n] = a
				}
				a.hits++
				a.jobs[j.Key()] = true
				a.runs[i] = true
				if j.Primary != nil && j.Primary.Category != "" {
					a.cats[j.Primary.Category] = true
				}
			}
		}
	}
	var out []hotNode
	for name, a := range nodes {
		if a.hits < 2 {
			continue
		}
		out = append(out, hotNode{Name: name, Hits: a.hits, Jobs: keys(a.jobs), Runs: len(a.runs), Categories: keys(a.cats)})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Hits != out[b].Hits {
			return out[a].Hits > out[b].Hits
		}
		return out[a].Name < out[b].Name
	})
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
