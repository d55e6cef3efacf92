package logscan

import "github.com/traindoc/traindoc/engine/evidence"

// Reasons for skipped bytes.
const (
	SkipBinary   = "binary"
	SkipLongLine = "long-line"
	SkipNUL      = "nul"
)

// result is the bounded evidence one scan leaves: counts, skipped bytes
// by reason, signature matches with samples, the tail, the last traceback
// and the progress.
func (st *scanState) result() evidence.LogFile {
	lf := evidence.LogFile{
		Lines:   st.lines,
		Binary:  st.binary,
		Matches: map[string]evidence.SignatureMatch{},
		Tail:    []string{},
	}
	if st.counter != nil {
		lf.Bytes = st.counter.n
	}
	if st.binary {
		if lf.Bytes > 0 {
			lf.SkippedBytes = lf.Bytes
			lf.Skipped = []evidence.SkipReason{{Reason: SkipBinary, Bytes: lf.Bytes, Lines: st.lines}}
		}
		return lf
	}
	if st.longLines > 0 {
		lf.LongLines = st.longLines
		lf.Skipped = append(lf.Skipped, evidence.SkipReason{Reason: SkipLongLine, Bytes: st.longSkipped, Lines: st.longLines})
	}
	if st.nul != nil && st.nul.removed > 0 {
		lf.Skipped = append(lf.Skipped, evidence.SkipReason{Reason: SkipNUL, Bytes: st.nul.removed})
	}
	for _, r := range lf.Skipped {
		lf.SkippedBytes += r.Bytes
	}
	lf.FirstTime = st.firstTS
	if len(st.lastTS) > 0 {
		lf.LastTime = formatTimestamp(st.lastTS)
	}
	for _, t := range st.matched {
		ss := &st.sigs[t]
		m := evidence.SignatureMatch{
			Count:     ss.count,
			FirstLine: ss.firstLine,
			LastLine:  ss.lastLine,
			FirstTime: ss.firstTime,
			Groups:    ss.groups,
		}
		if len(ss.lastTS) > 0 {
			m.LastTime = formatTimestamp(ss.lastTS)
		}
		for _, b := range ss.samples {
			m.Samples = append(m.Samples, b.logLine())
		}
		if ss.lastIsLast && ss.last != nil {
			m.Samples = append(m.Samples, ss.last.logLine())
		}
		lf.Matches[st.s.sigs[t].id] = m
	}
	n := min(st.ring.n, st.opts.TailLines)
	for i := st.ring.n - n; i < st.ring.n; i++ {
		lf.Tail = append(lf.Tail, clean(st.ring.at(i)))
	}
	st.tb.close()
	if b := st.tb.best; b != nil {
		lf.Traceback = b.lines()
		lf.Exception = b.exception
	}
	lf.Progress = st.prog.result(st.s.metrics)
	return lf
}
