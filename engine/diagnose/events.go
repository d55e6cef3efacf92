package diagnose

import (
	"strings"

	"github.com/traindoc/traindoc/engine/evidence"
)

// maxSimilar is how many events about one object with the same type,
// reason and message pattern are kept apart; more are combined into one,
// as kubectl's event aggregator does (its maxSimilarEvents is 10).
const maxSimilar = 10

// aggregateEvents combines similar events before the rules read them: a
// job with thousands of pods can carry a hundred thousand events, most of
// them the same probe failure or back-off with other numbers in the
// message, and every rule that reads events would read each. Events are
// similar when they are about the same object and have the same type,
// reason and message once digits are masked. A group of more than
// maxSimilar is replaced, at the place of its first event, by that first
// event with the group's summed count and its last time; the first
// message is kept whole, so that rules match it as they would have.
// Smaller groups are left exactly as they are.
func aggregateEvents(events []evidence.Event) []evidence.Event {
	if len(events) <= maxSimilar {
		return events
	}
	type group struct {
		first int // index of the first event in events
		n     int
	}
	groups := make(map[string]*group, len(events))
	keys := make([]string, len(events))
	combine := false
	for i := range events {
		e := &events[i]
		k := e.Object.Kind + "\x00" + e.Object.Namespace + "\x00" + e.Object.Name + "\x00" + e.Type + "\x00" + e.Reason + "\x00" + maskDigits(e.Message)
		keys[i] = k
		g := groups[k]
		if g == nil {
			g = &group{first: i}
			groups[k] = g
		}
		g.n++
		combine = combine || g.n > maxSimilar
	}
	if !combine {
		return events
	}
	out := make([]evidence.Event, 0, len(groups))
	at := make(map[string]int, len(groups)) // group key -> index in out
	for i, e := range events {
		g := groups[keys[i]]
		if g.n <= maxSimilar {
			out = append(out, e)
			continue
		}
		j, ok := at[keys[i]]
		if !ok {
			at[keys[i]] = len(out)
			out = append(out, e)
			continue
		}
		c := &out[j]
		c.Count += e.Count
		if earlier(e.FirstTime, c.FirstTime) {
			c.FirstTime = e.FirstTime
		}
		if earlier(c.LastTime, e.LastTime) {
			c.LastTime = e.LastTime
		}
	}
	return out
}

// maskDigits replaces each run of digits with one '#'.
func maskDigits(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteByte(c)
	}
	return b.String()
}

// earlier reports whether RFC 3339 time a is before b; an empty time is
// never earlier.
func earlier(a, b string) bool {
	switch {
	case a == "":
		return false
	case b == "":
		return true
	}
	ta, okA := parseTime(a)
	tb, okB := parseTime(b)
	if !okA || !okB {
		return a < b
	}
	return ta.Before(tb)
}
