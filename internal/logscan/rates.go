package logscan

import (
	"fmt"
	"io"
)

// Rate is how selective the gate of one signature or progress pattern was
// on a log: of Records (lines, or carriage-return segments of lines),
// Candidates passed the gate and had the regexp run on them, and
// Confirmed matched.
type Rate struct {
	ID string
	// Progress is set for a progress pattern, clear for a signature.
	Progress   bool
	Records    int64
	Candidates int64
	Confirmed  int64
}

// CandidateRate is the share of records that passed the gate.
func (r Rate) CandidateRate() float64 { return ratio(r.Candidates, r.Records) }

// WastedRate is the share of records that passed the gate without
// matching: regexp runs the gate did not save.
func (r Rate) WastedRate() float64 { return ratio(r.Candidates-r.Confirmed, r.Records) }

func ratio(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func (r Rate) String() string {
	return fmt.Sprintf("%s: %d of %d records passed the gate (%.3f%%), %d matched", r.ID, r.Candidates, r.Records, 100*r.CandidateRate(), r.Confirmed)
}

// rateCounts are the counters of a scan that measures rates.
type rateCounts struct {
	records   int64
	cands     []int64
	confirmed []int64
}

// CandidateRates scans r as Scan does and reports, for every signature and
// progress pattern in declaration order, how many records passed its gate
// and how many of those its regexp confirmed. A signature whose gate lets
// through a noticeable share of a healthy log costs a regexp run on each
// such line; rule tests can use this to flag it. Every candidate is
// confirmed here (Scan stops at the first match of a signature on a
// line), so this costs more than a scan.
func (s *Scanner) CandidateRates(r io.Reader) ([]Rate, error) {
	st := newScanState(s, Options{}.withDefaults())
	n := int(s.tracebackTarget())
	st.stats = &rateCounts{cands: make([]int64, n+1), confirmed: make([]int64, n+1)}
	err := st.run(r)
	out := make([]Rate, n)
	for t := 0; t < n; t++ {
		out[t] = Rate{
			ID:         s.targetID(int32(t)),
			Progress:   t >= len(s.sigs),
			Records:    st.stats.records,
			Candidates: st.stats.cands[t],
			Confirmed:  st.stats.confirmed[t],
		}
	}
	return out, err
}
