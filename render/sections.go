package render

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
)

// pods is the per-pod table: the failing pods first (the primary's own
// first of all), the rest folded when there are many. Columns no pod has
// a value for (ranks, exit codes) are left out.
func (w *mdWriter) pods(j *report.Job, lvl int) {
	if len(j.Pods) == 0 {
		return
	}
	rows := orderedPods(j)
	hasRanks, hasExit := false, false
	for _, p := range rows {
		hasRanks = hasRanks || len(p.Ranks) > 0
		hasExit = hasExit || p.ExitCode != nil
	}
	type column struct {
		key, align string
		cell       func(p *report.Pod) string
	}
	cols := []column{
		{"pod", "---", func(p *report.Pod) string {
			if p.Failing {
				return "**" + markerWarning + "** " + codeCell(p.Name)
			}
			return codeCell(p.Name)
		}},
		{"role", "---", func(p *report.Pod) string {
			role := escapeInline(p.Role)
			if p.Index != nil {
				role += " " + strconv.Itoa(*p.Index)
			}
			return role
		}},
	}
	if hasRanks {
		cols = append(cols, column{"rank", "---:", func(p *report.Pod) string { return escapeInline(rankRanges(p.Ranks)) }})
	}
	cols = append(cols,
		column{"node", "---", func(p *report.Pod) string { return codeCell(p.Node) }},
		column{"state", "---", func(p *report.Pod) string {
			if p.State != "" {
				return codeCell(p.State)
			}
			return codeCell(p.Phase)
		}})
	if hasExit {
		cols = append(cols, column{"exit", "---:", func(p *report.Pod) string {
			if p.ExitCode == nil {
				return ""
			}
			if *p.ExitCode != 0 {
				return "**" + strconv.Itoa(*p.ExitCode) + "**"
			}
			return "0"
		}})
	}
	cols = append(cols,
		column{"restarts", "---:", func(p *report.Pod) string { return emphasiseNonZero(p.Restarts) }},
		column{"last_line", "---", func(p *report.Pod) string { return codeCell(cutLine(p.LastLine)) }})
	w.heading(lvl, T(w.lang, "pods.title"), "")
	header := func() {
		w.printf("|")
		for _, c := range cols {
			w.printf(" %s |", w.t("pods."+c.key))
		}
		w.printf("\n|")
		for _, c := range cols {
			w.printf(" %s |", c.align)
		}
		w.printf("\n")
	}
	row := func(p *report.Pod) {
		w.printf("|")
		for _, c := range cols {
			w.printf(" %s |", c.cell(p))
		}
		w.printf("\n")
	}
	header()
	shown := min(len(rows), shownPods)
	for _, p := range rows[:shown] {
		row(p)
	}
	w.printf("\n")
	if len(rows) > shown {
		rest := rows[shown:]
		if len(rest) > maxFoldedPods {
			rest = rest[:maxFoldedPods]
		}
		w.details(fill(w.lang, "pods.more", "n", strconv.Itoa(len(rows)-shown)), func() {
			header()
			for _, p := range rest {
				row(p)
			}
			w.printf("\n")
		})
	}
}

// orderedPods puts the primary's pods first, then the other failing pods,
// then the rest, each group in name order.
func orderedPods(j *report.Job) []*report.Pod {
	primary := map[string]bool{}
	if j.Primary != nil && !j.Healthy {
		for _, s := range podSubjects(j.Primary) {
			primary[s.Name] = true
		}
	}
	rows := make([]*report.Pod, len(j.Pods))
	for i := range j.Pods {
		rows[i] = &j.Pods[i]
	}
	rank := func(p *report.Pod) int {
		switch {
		case primary[p.Name]:
			return 0
		case p.Failing:
			return 1
		}
		return 2
	}
	sort.SliceStable(rows, func(a, b int) bool {
		if ra, rb := rank(rows[a]), rank(rows[b]); ra != rb {
			return ra < rb
		}
		return rows[a].Name < rows[b].Name
	})
	return rows
}

// rankRanges writes sorted ranks as ranges: 0-7, 13.
func rankRanges(ranks []int) string {
	if len(ranks) == 0 {
		return ""
	}
	rs := append([]int(nil), ranks...)
	sort.Ints(rs)
	var parts []string
	for i := 0; i < len(rs); {
		k := i
		for k+1 < len(rs) && rs[k+1] == rs[k]+1 {
			k++
		}
		if k > i {
			parts = append(parts, strconv.Itoa(rs[i])+"–"+strconv.Itoa(rs[k]))
		} else {
			parts = append(parts, strconv.Itoa(rs[i]))
		}
		i = k + 1
	}
	return strings.Join(parts, ", ")
}

func (w *mdWriter) replicas(rs []report.Replica, lvl int) {
	if len(rs) == 0 {
		return
	}
	w.heading(lvl, T(w.lang, "replicas.title"), "")
	cols := []string{"type", "expected", "created", "pending", "running", "succeeded", "failed", "restarts"}
	w.printf("|")
	for _, c := range cols {
		w.printf(" %s |", w.t("replicas."+c))
	}
	w.printf("\n| --- |%s\n", strings.Repeat(" ---: |", len(cols)-1))
	for _, r := range rs {
		w.printf("| %s | %d | %d | %d | %d | %d | %s | %s |\n",
			codeCell(r.Type), r.Expected, r.Created, r.Pending, r.Running, r.Succeeded,
			emphasiseNonZero(r.Failed), emphasiseNonZero(r.Restarts))
	}
	w.printf("\n")
}

func emphasiseNonZero(n int) string {
	if n > 0 {
		return "**" + strconv.Itoa(n) + "**"
	}
	return "0"
}

// timelineRow is a row of the timeline: one entry that matters (with the
// same entry on other objects at about the same time, as when 63 pods
// end at once), or a run of routine entries collapsed into counts.
type timelineRow struct {
	entry   *report.Entry
	same    []*report.Entry
	routine []*report.Entry
}

// keyEntry reports whether an entry matters on its own: bad news, a job
// condition or traindoc's note. Pod creations, schedulings, image pulls
// and container starts are routine: they are counted, not listed.
func keyEntry(e *report.Entry) bool {
	return e.Warning || e.Kind == "note" || (e.Kind == "condition" && e.Key == "")
}

// minRoutineRun is the shortest run of routine entries worth a count
// row; shorter runs are listed as they are.
const minRoutineRun = 3

func timelineRows(es []report.Entry) []timelineRow {
	var rows []timelineRow
	for i := range es {
		e := &es[i]
		if keyEntry(e) || len(es) <= foldTimelineAbove {
			rows = append(rows, timelineRow{entry: e})
			continue
		}
		if n := len(rows); n > 0 && rows[n-1].entry == nil {
			rows[n-1].routine = append(rows[n-1].routine, e)
			continue
		}
		rows = append(rows, timelineRow{routine: []*report.Entry{e}})
	}
	// Runs too short to be worth counting are listed entry by entry.
	var out []timelineRow
	for _, r := range rows {
		if r.entry == nil && len(r.routine) < minRoutineRun {
			for _, e := range r.routine {
				out = append(out, timelineRow{entry: e})
			}
			continue
		}
		out = append(out, r)
	}
	if len(es) <= foldTimelineAbove {
		return out
	}
	// The same news about many objects in a row is one row.
	var merged []timelineRow
	for _, r := range out {
		if n := len(merged); n > 0 && r.entry != nil && merged[n-1].entry != nil && sameNews(merged[n-1].entry, r.entry) {
			merged[n-1].same = append(merged[n-1].same, r.entry)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// sameNews reports whether two entries say the same about different
// objects: the same words (a container of the same name ended the same
// way), not the same object.
func sameNews(a, b *report.Entry) bool {
	return a.Object != b.Object && a.Kind == b.Kind && a.Warning == b.Warning && a.Key == b.Key && a.Text == b.Text
}

// routineLabel names what a routine entry is, for counting: its reason or
// traindoc's short name for it.
func routineLabel(e *report.Entry, lang string) phrase {
	if e.Key != "" {
		short := "timeline.short." + strings.TrimPrefix(e.Key, "engine.timeline.")
		if i18n.Has("report." + short) {
			return words(T(lang, short))
		}
		if e.Params["reason"] != "" {
			return quote(e.Params["reason"])
		}
	}
	if e.Reason != "" {
		return quote(e.Reason)
	}
	return words(Term(lang, "timeline."+e.Kind))
}

func (w *mdWriter) timeline(es []report.Entry, lvl int) {
	if len(es) == 0 {
		return
	}
	w.heading(lvl, T(w.lang, "timeline.title"), "")
	rows := timelineRows(es)
	collapsed := len(rows) < len(es)
	if n := countRoutine(rows); n > 0 {
		w.printf("*%s*\n\n", w.t2("timeline.collapsed", "n", strconv.Itoa(n)))
	}
	w.timelineTable(rows)
	if collapsed {
		all := make([]timelineRow, len(es))
		for i := range es {
			all[i] = timelineRow{entry: &es[i]}
		}
		w.details(fill(w.lang, "timeline.all", "n", strconv.Itoa(len(es))), func() { w.timelineTable(all) })
	}
}

func countRoutine(rows []timelineRow) int {
	n := 0
	for _, r := range rows {
		n += len(r.routine)
	}
	return n
}

func (w *mdWriter) timelineTable(rows []timelineRow) {
	w.printf("| %s | %s | %s | %s |\n| --- | --- | --- | --- |\n",
		w.t("timeline.time"), w.t("timeline.kind"), w.t("timeline.object"), w.t("timeline.text"))
	for _, r := range rows {
		if e := r.entry; e != nil {
			kind := escapeInline(Term(w.lang, "timeline."+e.Kind))
			if e.Warning {
				kind = "**" + markerWarning + " " + kind + "**"
			}
			when, obj := escapeInline(formatTime(e.Time)), codeCell(e.Object)
			if len(r.same) > 0 {
				when = escapeInline(w.span(e, r.same[len(r.same)-1]))
				obj = escapeInline(Tf(w.lang, "timeline.objects", "n", strconv.Itoa(len(r.same)+1)))
			}
			w.printf("| %s | %s | %s | %s |\n", when, kind, obj, entryPhrase(e, w.lang).cell())
			continue
		}
		first, last := r.routine[0], r.routine[len(r.routine)-1]
		when := w.span(first, last)
		objects := map[string]bool{}
		counts := map[string]int{}
		var order []string
		labels := map[string]phrase{}
		for _, e := range r.routine {
			objects[e.Object] = true
			l := routineLabel(e, w.lang)
			k := l.plain()
			if _, ok := labels[k]; !ok {
				labels[k] = l
				order = append(order, k)
			}
			counts[k]++
		}
		var parts []phrase
		for _, k := range order {
			parts = append(parts, fill(w.lang, "timeline.count", "what", labels[k], "n", strconv.Itoa(counts[k])))
		}
		text := fill(w.lang, "timeline.routine", "n", strconv.Itoa(len(r.routine)), "list", join(parts, T(w.lang, "punct.list_sep")))
		obj := escapeInline(Tf(w.lang, "timeline.objects", "n", strconv.Itoa(len(objects))))
		if len(objects) == 1 {
			obj = codeCell(first.Object)
		}
		w.printf("| %s | *%s* | %s | %s |\n", escapeInline(when), w.t("timeline.routine_kind"), obj, text.cell())
	}
	w.printf("\n")
}

// span is the time from one entry to another; the same day twice says
// nothing, so the end shows its time only.
func (w *mdWriter) span(first, last *report.Entry) string {
	when := formatTime(first.Time)
	to := formatTime(last.Time)
	if to == when {
		return when
	}
	if len(to) > 11 && len(when) > 11 && to[:11] == when[:11] {
		to = to[11:]
	}
	return Tf(w.lang, "timeline.span", "from", when, "to", to)
}

// entryPhrase is an entry's text: traindoc's words translated with the
// cluster's words quoted, or the cluster's text quoted whole.
func entryPhrase(e *report.Entry, lang string) phrase {
	if e.Key == "" || !i18n.Has(e.Key) {
		text := e.Text
		if lang == "zh" && e.TextZh != "" && e.Key == "" {
			// An older report: its Chinese text is all there is.
			return words(e.TextZh)
		}
		return quote(text)
	}
	args := make([]any, 0, 2*len(e.Params))
	for k, v := range e.Params {
		switch k {
		case "n", "count", "code":
			args = append(args, k, v)
		case "last":
			args = append(args, k, formatTime(v))
		default:
			args = append(args, k, quote(v))
		}
	}
	return fillKey(lang, e.Key, args...)
}

func (w *mdWriter) progress(p *report.Progress, lvl int) {
	if p == nil {
		return
	}
	items := progressItems(p, w.lang)
	if len(items) == 0 {
		return
	}
	w.heading(lvl, T(w.lang, "progress.title"), "")
	for _, it := range items {
		w.printf("- %s %s\n", w.label(it.key), escapeInline(it.value))
	}
	w.printf("\n")
}

type progressItem struct{ key, value string }

// progressItems are the progress facts a report shows, in order: step,
// throughput, loss, checkpoint, GPU use.
func progressItems(p *report.Progress, lang string) []progressItem {
	var items []progressItem
	add := func(key, val string) { items = append(items, progressItem{key, val}) }
	if p.LastStep != nil {
		s := strconv.FormatInt(*p.LastStep, 10)
		if p.TotalSteps != nil && *p.TotalSteps > 0 {
			s += fmt.Sprintf(" / %d (%.1f%%)", *p.TotalSteps, 100*float64(*p.LastStep)/float64(*p.TotalSteps))
		}
		if p.LastStepTime != "" {
			s += " · " + formatTime(p.LastStepTime)
		}
		add("progress.last_step", s)
	}
	if p.Throughput > 0 {
		s := formatQuantity(p.Throughput, p.ThroughputUnit)
		if p.BaselineThroughput > 0 {
			s = Tf(lang, "progress.throughput_vs", "now", s, "baseline", formatQuantity(p.BaselineThroughput, p.ThroughputUnit))
		}
		add("progress.throughput", s)
	}
	if p.LastLoss != nil {
		add("progress.loss", strconv.FormatFloat(*p.LastLoss, 'g', 5, 64))
	}
	if p.CheckpointStep != nil || p.CheckpointTime != "" {
		var s string
		if p.CheckpointStep != nil {
			s = Tf(lang, "progress.checkpoint_at", "step", strconv.FormatInt(*p.CheckpointStep, 10))
		}
		if p.CheckpointTime != "" {
			if s != "" {
				s += " · "
			}
			s += formatTime(p.CheckpointTime)
		}
		add("progress.checkpoint", s)
	}
	if p.GPUUtilization != nil {
		add("progress.gpu", strconv.FormatFloat(*p.GPUUtilization, 'f', 0, 64)+"%")
	}
	return items
}

// progressLine is the progress of a running job in one line: step,
// throughput, GPU use.
func progressLine(p *report.Progress, lang string) phrase {
	var parts []string
	for _, it := range progressItems(p, lang) {
		switch it.key {
		case "progress.last_step", "progress.throughput", "progress.gpu":
			parts = append(parts, T(lang, it.key)+T(lang, "punct.colon")+" "+it.value)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return words(strings.Join(parts, " · "))
}

func formatQuantity(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if v >= 100 {
		s = strconv.FormatFloat(v, 'f', 0, 64)
	} else if v >= 1 {
		s = strconv.FormatFloat(v, 'f', 1, 64)
	} else if v > 0 {
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

// explanation shows the optional LLM text: Healthy, Error, Analysis and
// Solution with the model's name, or why there is none. The text is model
// output, so it is escaped like any other untrusted text.
func (w *mdWriter) explanation(e *report.Explanation, lvl int) {
	if e == nil {
		return
	}
	w.heading(lvl, T(w.lang, "explain.title"), "")
	if e.Missing != "" && e.Error == "" && e.Analysis == "" && len(e.Solution) == 0 {
		w.printf("> %s\n\n", fill(w.lang, "explain.missing", "reason", quote(e.Missing)).md())
		return
	}
	w.printf("*%s*\n\n", w.t("explain.disclaimer"))
	if e.Model != "" {
		m := codeSpan(e.Model)
		if e.Cached {
			m += " (" + w.t("explain.cached") + ")"
		}
		w.printf("- %s %s\n", w.label("explain.model"), m)
	}
	if e.Healthy != "" {
		h := e.Healthy
		switch strings.ToLower(h) {
		case "yes":
			h = T(w.lang, "explain.yes")
		case "no":
			h = T(w.lang, "explain.no")
		}
		w.printf("- %s %s\n", w.label("explain.healthy"), escapeInline(h))
	}
	if e.Error != "" {
		w.printf("- %s %s\n", w.label("explain.error"), escapeInline(e.Error))
	}
	w.printf("\n")
	if e.Analysis != "" {
		w.printf("%s\n\n", w.label("explain.analysis"))
		for _, para := range strings.Split(strings.ReplaceAll(e.Analysis, "\r\n", "\n"), "\n\n") {
			if p := strings.TrimSpace(para); p != "" {
				w.printf("%s\n\n", escapeInline(p))
			}
		}
	}
	if len(e.Solution) > 0 {
		w.printf("%s\n\n", w.label("explain.solution"))
		for i, s := range e.Solution {
			w.printf("%d. %s\n", i+1, escapeInline(s))
		}
		w.printf("\n")
	}
	if e.Missing != "" {
		w.printf("> %s\n\n", fill(w.lang, "explain.missing", "reason", quote(e.Missing)).md())
	}
}
