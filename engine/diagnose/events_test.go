package diagnose

import (
	"fmt"
	"slices"
	"testing"

	"github.com/traindoc/traindoc/engine/evidence"
)

func probeEvents(pod string, n int) []evidence.Event {
	var out []evidence.Event
	for i := range n {
		out = append(out, evidence.Event{
			Type: "Warning", Reason: "Unhealthy", Object: evidence.Ref{Kind: "Pod", Name: pod},
			Message: fmt.Sprintf("Readiness probe failed: timed out after %ds (attempt %d)", 10+i%3, i), Count: 2,
			FirstTime: fmt.Sprintf("2026-03-14T10:%02d:00Z", 10+i), LastTime: fmt.Sprintf("2026-03-14T10:%02d:30Z", 10+i),
		})
	}
	return out
}

func TestAggregateEvents(t *testing.T) {
	started := evidence.Event{Type: "Normal", Reason: "Started", Object: evidence.Ref{Kind: "Pod", Name: "a"}, Message: "Started container", Count: 1, FirstTime: "2026-03-14T10:00:00Z"}
	t.Run("up to maxSimilar similar events stay apart", func(t *testing.T) {
		in := append([]evidence.Event{started}, probeEvents("a", maxSimilar)...)
		got := aggregateEvents(slices.Clone(in))
		if !slices.EqualFunc(got, in, func(a, b evidence.Event) bool { return a == b }) {
			t.Errorf("changed:\n%v\nwant\n%v", got, in)
		}
	})
	t.Run("more are combined at the first one's place", func(t *testing.T) {
		in := append([]evidence.Event{started}, probeEvents("a", maxSimilar+2)...)
		in = append(in, probeEvents("b", 3)...)
		got := aggregateEvents(in)
		if len(got) != 1+1+3 {
			t.Fatalf("%d events, want 5: %v", len(got), got)
		}
		c := got[1]
		want := probeEvents("a", 1)[0]
		want.Count = 2 * (maxSimilar + 2)
		want.LastTime = "2026-03-14T10:21:30Z"
		if c != want {
			t.Errorf("combined = %+v\nwant %+v", c, want)
		}
		if got[0] != started || got[2].Object.Name != "b" {
			t.Errorf("order or other events changed: %v", got)
		}
	})
	t.Run("other objects, types and reasons are not mixed", func(t *testing.T) {
		var in []evidence.Event
		for i := range 3 * maxSimilar {
			e := probeEvents(fmt.Sprint("p", i%3), 1)[0]
			if i%2 == 0 {
				e.Reason = "BackOff"
			}
			in = append(in, e)
		}
		if got := aggregateEvents(slices.Clone(in)); len(got) != len(in) {
			t.Errorf("%d events, want %d", len(got), len(in))
		}
	})
}

func TestMaskDigits(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "",
		"no digits":                    "no digits",
		"0/512 nodes: 12 Insufficient": "#/# nodes: # Insufficient",
		"10.0.3.4:8080":                "#.#.#.#:#",
	} {
		if got := maskDigits(in); got != want {
			t.Errorf("maskDigits(%q) = %q, want %q", in, got, want)
		}
	}
}
