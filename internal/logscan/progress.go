package logscan

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

// Normalised throughput units.
const (
	UnitSamples = "samples/s"
	UnitTokens  = "tokens/s"
	UnitIters   = "it/s"
)

// unitConv converts a value in some written unit to a normalised unit:
// rate = value*scale, or scale/value when invert (time per iteration).
type unitConv struct {
	unit   string
	invert bool
	scale  float64
}

func (u unitConv) apply(v float64) (float64, bool) {
	if u.invert {
		if v <= 0 {
			return 0, false
		}
		v = u.scale / v
	} else {
		v *= u.scale
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}

// normaliseUnit maps the many spellings of throughput units found in
// training logs (it/s, s/it, samples/sec, tokens_per_second, ms/it ...)
// onto samples/s, tokens/s or it/s. Time-per-iteration units are inverted
// so that a higher value always means faster.
func normaliseUnit(u string) (unitConv, bool) {
	u = strings.ToLower(strings.TrimSpace(u))
	u = strings.Trim(u, "[]() ,")
	var num, den string
	switch {
	case strings.Contains(u, "/"):
		num, den, _ = strings.Cut(u, "/")
	case strings.Contains(u, "_per_"):
		num, den, _ = strings.Cut(u, "_per_")
	case strings.Contains(u, " per "):
		num, den, _ = strings.Cut(u, " per ")
	default:
		return unitConv{}, false
	}
	num, den = strings.TrimSpace(num), strings.TrimSpace(den)
	if sec, ok := secondsScale(den); ok {
		var unit string
		switch {
		case hasAnyPrefix(num, "tok"):
			unit = UnitTokens
		case hasAnyPrefix(num, "sample", "example", "seq", "img", "image"):
			unit = UnitSamples
		case hasAnyPrefix(num, "it", "step", "batch"):
			unit = UnitIters
		default:
			return unitConv{}, false
		}
		// A rate per millisecond is 1000 per second.
		return unitConv{unit: unit, scale: 1 / sec}, true
	}
	if sec, ok := secondsScale(num); ok && hasAnyPrefix(den, "it", "step", "batch") {
		return unitConv{unit: UnitIters, invert: true, scale: 1 / sec}, true
	}
	return unitConv{}, false
}

// secondsScale returns the length of a time unit in seconds.
func secondsScale(s string) (float64, bool) {
	switch s {
	case "s", "sec", "secs", "second", "seconds":
		return 1, true
	case "ms", "msec", "millisecond", "milliseconds":
		return 0.001, true
	case "min", "minute", "minutes":
		return 60, true
	}
	return 0, false
}

func hasAnyPrefix(s string, ps ...string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// maxSeriesPoints bounds a throughput series. When full, every other point
// is dropped and only every second later sample is kept, so the series
// stays a uniform sample of the whole run in bounded memory.
const maxSeriesPoints = 2048

type point struct {
	v   float64
	idx int64
	t   int64 // unix nanoseconds, 0 when unknown
}

type series struct {
	unit   string
	n      int64
	stride int64
	pts    []point
	last   point
}

func (s *series) add(v float64, t int64) {
	if s.stride == 0 {
		s.stride = 1
	}
	p := point{v: v, idx: s.n, t: t}
	if s.n%s.stride == 0 {
		s.pts = append(s.pts, p)
		if len(s.pts) >= maxSeriesPoints {
			kept := s.pts[:0]
			for i := 0; i < len(s.pts); i += 2 {
				kept = append(kept, s.pts[i])
			}
			s.pts = kept
			s.stride *= 2
		}
	}
	s.last = p
	s.n++
}

// warmupSkip is how many leading samples a throughput baseline ignores:
// the first iterations include compilation, cache warm-up and data loader
// start, and are not representative.
func warmupSkip(n int64) int64 { return min(5, n/10) }

// summary computes the Throughput the rules see. Baseline is the median of
// the first third of the series after warm-up; Recent the median of the
// last 20% (at least 3 samples); Last the last value.
func (s *series) summary() *evidence.Throughput {
	if s.n == 0 {
		return nil
	}
	pts := s.pts
	if pts[len(pts)-1].idx != s.last.idx {
		pts = append(pts[:len(pts):len(pts)], s.last)
	}
	warm := warmupSkip(s.n)
	valid := pts
	for i, p := range pts {
		if p.idx >= warm {
			valid = pts[i:]
			break
		}
	}
	k := max(1, len(valid)/3)
	r := max(3, int(math.Ceil(0.2*float64(len(pts)))))
	r = min(r, len(pts))
	recent := pts[len(pts)-r:]
	out := &evidence.Throughput{
		Unit:     s.unit,
		Samples:  int(s.n),
		Baseline: round(median(valid[:k])),
		Recent:   round(median(recent)),
		Last:     round(s.last.v),
	}
	if recent[0].t != 0 {
		out.RecentSince = formatTime(time.Unix(0, recent[0].t))
	}
	return out
}

func median(ps []point) float64 {
	vs := make([]float64, len(ps))
	for i, p := range ps {
		vs[i] = p.v
	}
	sort.Float64s(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// round keeps reports stable and readable: 6 significant digits.
func round(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return f
}

// progressState accumulates what progress patterns found in one log.
// Values are kept by value with flags, and pointers made once at the end:
// a record per step line must not allocate.
type progressState struct {
	firstStep, lastStep, total int64
	hasTotal                   bool
	lastStepTime               int64
	lastStepLine               int
	stepSamples                int
	lastLoss                   float64
	hasLoss                    bool
	nonFinite                  int
	series                     []*series // at most one per normalised unit
	saved                      int64
	savedLine                  int // 0: no save seen
	savedTime                  int64
	// metrics are indexed like Scanner.metrics; nil until one is read.
	metrics []metricState
}

// lineProgress is what one line contributed; the first pattern that sets
// a field on a line wins.
type lineProgress struct {
	step, total   int64
	hasStep       bool
	hasTotal      bool
	loss          float64
	hasLoss       bool
	rates         [3]float64
	hasRate       [3]bool
	hasAnything   bool
	nonFiniteLoss bool
	saved         int64
	hasSaved      bool
	// metric holds the value read for each metric of the scanner, where
	// hasMetric is set (scratch of the scan, cleared per record).
	metric    []float64
	hasMetric []bool
}

func unitIndex(u string) int {
	switch u {
	case UnitSamples:
		return 0
	case UnitTokens:
		return 1
	}
	return 2
}

var unitNames = [3]string{UnitSamples, UnitTokens, UnitIters}

// extract reads the groups of one progress pattern's match (loc, as
// returned by FindSubmatchIndex on text) into lp.
func (p *progressPattern) extract(text []byte, loc []int, lp *lineProgress) {
	if loc == nil {
		return
	}
	group := func(gi int) ([]byte, bool) {
		if gi == 0 || loc[2*gi] < 0 {
			return nil, false
		}
		return text[loc[2*gi]:loc[2*gi+1]], true
	}
	if g, ok := group(p.step); ok && !lp.hasStep {
		if v, ok := parseCount(g); ok {
			lp.step, lp.hasStep, lp.hasAnything = v, true, true
		}
	}
	if g, ok := group(p.total); ok && !lp.hasTotal {
		if v, ok := parseCount(g); ok {
			lp.total, lp.hasTotal = v, true
		}
	}
	if g, ok := group(p.loss); ok && !lp.hasLoss && !lp.nonFiniteLoss {
		if v, ok := parseFloat(g); ok {
			lp.hasAnything = true
			if math.IsNaN(v) || math.IsInf(v, 0) {
				lp.nonFiniteLoss = true
			} else {
				lp.loss, lp.hasLoss = v, true
			}
		}
	}
	if g, ok := group(p.saved); ok && !lp.hasSaved {
		if v, ok := parseCount(g); ok {
			lp.saved, lp.hasSaved, lp.hasAnything = v, true, true
		}
	}
	for _, mg := range p.metrics {
		if lp.hasMetric[mg.metric] {
			continue
		}
		if g, ok := group(mg.group); ok {
			if v, ok := parseFloat(g); ok {
				lp.metric[mg.metric], lp.hasMetric[mg.metric], lp.hasAnything = v, true, true
			}
		}
	}
	if g, ok := group(p.value); ok {
		conv := p.fixed
		if ug, ok := group(p.unit); ok {
			c, ok := normaliseUnit(string(ug))
			if !ok {
				return
			}
			conv = &c
		}
		if conv == nil {
			return
		}
		if v, ok := parseFloat(g); ok {
			if r, ok := conv.apply(v); ok {
				ui := unitIndex(conv.unit)
				if !lp.hasRate[ui] {
					lp.rates[ui], lp.hasRate[ui], lp.hasAnything = r, true, true
				}
			}
		}
	}
}

// covered tells whether every field p can read is already set on the
// line: then p's match would change nothing and need not run.
func (p *progressPattern) covered(lp *lineProgress) bool {
	if p.step != 0 && !lp.hasStep || p.total != 0 && !lp.hasTotal ||
		p.loss != 0 && !lp.hasLoss && !lp.nonFiniteLoss || p.saved != 0 && !lp.hasSaved {
		return false
	}
	for _, mg := range p.metrics {
		if !lp.hasMetric[mg.metric] {
			return false
		}
	}
	if p.value != 0 {
		if p.unit != 0 || p.fixed == nil {
			return lp.hasRate == [3]bool{true, true, true}
		}
		return lp.hasRate[unitIndex(p.fixed.unit)]
	}
	return true
}

// parseCount reads a step count, tolerating thousands separators.
func parseCount(b []byte) (int64, bool) {
	b = bytes.TrimSpace(b)
	if bytes.IndexByte(b, ',') >= 0 || bytes.IndexByte(b, '_') >= 0 {
		b = bytes.Map(func(r rune) rune {
			if r == ',' || r == '_' {
				return -1
			}
			return r
		}, b)
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil && v >= 0
}

// parseFloat reads a number the way Python prints it, including nan and
// inf spelled in any case.
func parseFloat(b []byte) (float64, bool) {
	if b = bytes.TrimSpace(b); plainNumber(b) {
		// The common case, read without the copies below.
		v, err := strconv.ParseFloat(string(b), 64)
		return v, err == nil
	}
	s := strings.ToLower(string(b))
	switch strings.TrimLeft(s, "+-") {
	case "nan":
		return math.NaN(), true
	case "inf", "infinity":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	s = strings.ReplaceAll(s, ",", "")
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// plainNumber tells whether b is written with digits, a point, signs and
// an exponent only, as most logged numbers are.
func plainNumber(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}

// record folds one line's progress into the state; text is the record,
// kept where a metric's evidence shows it.
func (ps *progressState) record(lp *lineProgress, line int, t int64, text []byte) {
	if lp.hasSaved {
		ps.saved, ps.savedLine, ps.savedTime = lp.saved, line, t
	}
	for mi, ok := range lp.hasMetric {
		if !ok {
			continue
		}
		if ps.metrics == nil {
			ps.metrics = make([]metricState, len(lp.hasMetric))
		}
		pt := metricPoint{line: line, t: t, step: lp.step, hasStep: lp.hasStep, value: lp.metric[mi]}
		ps.metrics[mi].add(pt, text)
	}
	if lp.hasStep {
		if ps.stepSamples == 0 {
			ps.firstStep = lp.step
		}
		ps.lastStep = lp.step
		ps.lastStepLine = line
		ps.lastStepTime = t
		ps.stepSamples++
	}
	if lp.hasTotal {
		ps.total, ps.hasTotal = lp.total, true
	}
	if lp.hasLoss {
		ps.lastLoss, ps.hasLoss = lp.loss, true
	}
	if lp.nonFiniteLoss {
		ps.nonFinite++
	}
	for ui := range lp.rates {
		if !lp.hasRate[ui] {
			continue
		}
		var s *series
		for _, x := range ps.series {
			if x.unit == unitNames[ui] {
				s = x
			}
		}
		if s == nil {
			s = &series{unit: unitNames[ui]}
			ps.series = append(ps.series, s)
		}
		s.add(lp.rates[ui], t)
	}
}

// result is the log's progress; names are the scanner's metrics.
func (ps *progressState) result(names []string) *evidence.LogProgress {
	if ps.stepSamples == 0 && !ps.hasLoss && ps.nonFinite == 0 && len(ps.series) == 0 && !ps.hasTotal &&
		ps.savedLine == 0 && ps.metrics == nil {
		return nil
	}
	out := &evidence.LogProgress{
		StepSamples:   ps.stepSamples,
		NonFiniteLoss: ps.nonFinite,
	}
	if ps.stepSamples > 0 {
		out.FirstStep, out.LastStep = ptr(ps.firstStep), ptr(ps.lastStep)
		out.LastStepLine, out.LastStepTime = ps.lastStepLine, formatNanos(ps.lastStepTime)
	}
	if ps.hasTotal {
		out.TotalSteps = ptr(ps.total)
	}
	if ps.hasLoss {
		out.LastLoss = ptr(ps.lastLoss)
	}
	if ps.savedLine != 0 {
		out.LastSavedStep, out.LastSavedLine, out.LastSavedTime = ptr(ps.saved), ps.savedLine, formatNanos(ps.savedTime)
	}
	for mi := range ps.metrics {
		if m := &ps.metrics[mi]; m.reports > 0 {
			if out.Metrics == nil {
				out.Metrics = map[string]evidence.MetricTrack{}
			}
			out.Metrics[names[mi]] = m.track()
		}
	}
	// The unit seen most wins; ties go to the earlier unit in
	// samples/s, tokens/s, it/s order, for determinism.
	var best *series
	for _, ui := range []string{UnitSamples, UnitTokens, UnitIters} {
		for _, s := range ps.series {
			if s.unit == ui && (best == nil || s.n > best.n) {
				best = s
			}
		}
	}
	if best != nil {
		out.Throughput = best.summary()
	}
	return out
}

// formatNanos formats a time in unix nanoseconds; 0 is unknown.
func formatNanos(t int64) string {
	if t == 0 {
		return ""
	}
	return formatTime(time.Unix(0, t))
}

// metricPoint is one report of a metric; text is kept only for the
// points whose evidence shows it, in a buffer reused from report to
// report so that tracking a metric on every step allocates nothing.
type metricPoint struct {
	line    int // 0: none
	t       int64
	step    int64
	hasStep bool
	value   float64
	text    []byte
}

// set makes p a copy of q with text (nil: none).
func (p *metricPoint) set(q metricPoint, text []byte) {
	buf := p.text[:0]
	*p = q
	p.text = append(buf, text...)
}

func (p *metricPoint) evidence() *evidence.MetricPoint {
	if p.line == 0 {
		return nil
	}
	out := &evidence.MetricPoint{Line: p.line, Time: formatNanos(p.t)}
	if p.hasStep {
		out.Step = ptr(p.step)
	}
	if finite(p.value) {
		out.Value = ptr(p.value)
	}
	if len(p.text) > 0 {
		out.Text = clean(p.text)
	}
	return out
}

// metricState tracks one metric in one log.
type metricState struct {
	reports, nonFinite int
	nonFiniteRun       int
	nonZeroRun         int
	last               metricPoint
	lastFinite         metricPoint
	firstNonFinite     metricPoint
	lastNonFinite      metricPoint
	nonFiniteSince     metricPoint
	nonZeroSince       metricPoint
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// add folds one report in; text is the record that made it.
func (m *metricState) add(p metricPoint, text []byte) {
	text = cut(text, maxTextBytes)
	m.reports++
	m.last.set(p, text)
	if finite(p.value) {
		m.lastFinite.set(p, nil)
		m.nonFiniteRun = 0
	} else {
		m.nonFinite++
		if m.firstNonFinite.line == 0 {
			m.firstNonFinite.set(p, text)
		}
		m.lastNonFinite.set(p, text)
		if m.nonFiniteRun == 0 {
			m.nonFiniteSince.set(p, text)
		}
		m.nonFiniteRun++
	}
	// NaN is not zero: a counter that went nan counts as non-zero.
	if p.value != 0 {
		if m.nonZeroRun == 0 {
			m.nonZeroSince.set(p, text)
		}
		m.nonZeroRun++
	} else {
		m.nonZeroRun = 0
	}
}

func (m *metricState) track() evidence.MetricTrack {
	out := evidence.MetricTrack{
		Reports:        m.reports,
		NonFinite:      m.nonFinite,
		Last:           *m.last.evidence(),
		LastFinite:     m.lastFinite.evidence(),
		FirstNonFinite: m.firstNonFinite.evidence(),
		LastNonFinite:  m.lastNonFinite.evidence(),
		NonFiniteRun:   m.nonFiniteRun,
		NonZeroRun:     m.nonZeroRun,
	}
	if m.nonFiniteRun > 0 {
		out.NonFiniteSince = m.nonFiniteSince.evidence()
	}
	if m.nonZeroRun > 0 {
		out.NonZeroSince = m.nonZeroSince.evidence()
	}
	return out
}

func ptr[T any](v T) *T { return &v }
