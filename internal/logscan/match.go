package logscan

// sigState is what one scan has seen of one signature: counts, first and
// last lines and times, named groups of the first match and the samples.
type sigState struct {
	count      int
	firstLine  int
	lastLine   int
	firstTime  string
	lastTS     []byte
	groups     map[string]string
	samples    []*sampleBuf
	last       *sampleBuf
	lastIsLast bool   // the newest match is in last, not in samples
	line       uint32 // lineGen of the last line counted
}

// matchSig confirms signature t on a record; a line counts once per
// signature however many of its records match.
func (st *scanState) matchSig(t int32, text, ts []byte) {
	sig := &st.s.sigs[t]
	ss := &st.sigs[t]
	if ss.line == st.lineGen {
		if st.stats != nil {
			if _, ok := st.search(t, sig.re, text, false); ok {
				st.stats.confirmed[t]++
			}
		}
		return
	}
	if ss.count == 0 {
		loc, _ := st.search(t, sig.re, text, true)
		if loc == nil {
			return
		}
		st.matched = append(st.matched, t)
		ss.firstLine = st.lines
		if ts != nil {
			ss.firstTime = formatTimestamp(ts)
		}
		for i, name := range sig.names {
			if name != "" && loc[2*i] >= 0 {
				if ss.groups == nil {
					ss.groups = map[string]string{}
				}
				ss.groups[name] = clean(text[loc[2*i]:loc[2*i+1]])
			}
		}
	} else if _, ok := st.search(t, sig.re, text, false); !ok {
		return
	}
	if st.stats != nil {
		st.stats.confirmed[t]++
	}
	ss.line = st.lineGen
	ss.count++
	ss.lastLine = st.lines
	ss.lastTS = append(ss.lastTS[:0], ts...)

	var b *sampleBuf
	if len(ss.samples) < st.opts.MaxSamples {
		b = &sampleBuf{}
		ss.samples = append(ss.samples, b)
		ss.lastIsLast = false
	} else {
		if ss.last == nil {
			ss.last = &sampleBuf{}
		}
		b = ss.last
		ss.lastIsLast = true
	}
	// The sample shows the record that matched: for a progress bar, the
	// segment, not the last redraw.
	b.set(st.lines, ts, cut(text, maxTextBytes), st.ring, sig.context, sig.context)
	if b.want > 0 && !b.active {
		b.active = true
		st.active = append(st.active, b)
	}
}

// progress applies the candidate progress patterns to a record.
func (st *scanState) progress(text, ts []byte) {
	var t int64
	if ts != nil {
		if tt, ok := parseTimestamp(ts); ok {
			t = tt.UnixNano()
		}
	} else if tt, ok := inlineTime(text); ok {
		t = tt.UnixNano()
	}
	lp := lineProgress{metric: st.lineMetric, hasMetric: st.lineHasMetric}
	clear(lp.hasMetric)
	for i, pi := range st.progCand {
		p := &st.s.progress[pi]
		if st.stats == nil && p.covered(&lp) {
			continue // what it could read, earlier patterns read
		}
		loc, _ := st.search(st.progTarget[i], p.re, text, true)
		if loc != nil && st.stats != nil {
			st.stats.confirmed[st.progTarget[i]]++
		}
		p.extract(text, loc, &lp)
	}
	if lp.hasAnything || lp.hasTotal {
		st.prog.record(&lp, st.lines, t, text)
	}
}
