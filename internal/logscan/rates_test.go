package logscan_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/internal/logscan"
)

var builtin struct {
	once sync.Once
	e    *policy.Engine
	err  error
}

// builtinRules loads the built-in rules once for all tests.
func builtinRules(t testing.TB) *policy.Engine {
	t.Helper()
	builtin.once.Do(func() {
		builtin.e, builtin.err = policy.Load(context.Background(), policy.Options{})
	})
	if builtin.err != nil {
		t.Fatalf("load built-in rules: %v", builtin.err)
	}
	return builtin.e
}

func builtinScanner(t testing.TB) *logscan.Scanner {
	t.Helper()
	e := builtinRules(t)
	s, err := logscan.Compile(e.Signatures, e.ProgressPatterns)
	if err != nil {
		t.Fatalf("compile built-in signatures: %v", err)
	}
	return s
}

// maxGateRate is the share of a healthy log's lines a signature's gate
// may let through (and a progress pattern's gate may let through without
// a match): above it, the regexp runs on a noticeable part of every log.
const maxGateRate = 0.01

// TestHealthyLogGates measures, on healthy logs of every style the
// generator knows, how many lines pass each built-in signature's gate,
// and how many lines pass each progress pattern's gate without matching.
func TestHealthyLogGates(t *testing.T) {
	s := builtinScanner(t)
	for _, profile := range logscan.HealthyProfiles {
		t.Run(profile, func(t *testing.T) {
			var log bytes.Buffer
			if err := logscan.WriteHealthyLog(&log, profile, 10000, 1); err != nil {
				t.Fatal(err)
			}
			rates, err := s.CandidateRates(&log)
			if err != nil {
				t.Fatal(err)
			}
			if len(rates) != len(s.Gates()) || rates[0].Records < 3000 {
				t.Fatalf("%d rates over %d records", len(rates), rates[0].Records)
			}
			worst := rates[0]
			for _, r := range rates {
				if r.Candidates-r.Confirmed > worst.Candidates-worst.Confirmed {
					worst = r
				}
				switch {
				case !r.Progress && r.CandidateRate() > maxGateRate:
					t.Errorf("signature %s: gate passes %.2f%% of lines (%s); gate %v", r.ID, 100*r.CandidateRate(), r, gateOf(s, r.ID))
				case r.Progress && r.WastedRate() > maxGateRate:
					t.Errorf("progress pattern %s: gate passes %.2f%% of lines that do not match (%s); gate %v", r.ID, 100*r.WastedRate(), r, gateOf(s, r.ID))
				}
			}
			t.Logf("most wasted regexp runs: %s", worst)
		})
	}
}

func gateOf(s *logscan.Scanner, id string) []string {
	for _, g := range s.Gates() {
		if g.ID == id {
			return g.Literals
		}
	}
	return nil
}

// TestGateRatesFlagWeakGates checks that the measurement sees weak gates:
// literals every training step prints ("loss=", "step=") that the lines
// then do not match.
func TestGateRatesFlagWeakGates(t *testing.T) {
	s, err := logscan.Compile([]map[string]any{
		{"id": "weak", "pattern": `(?i)\bloss=(?P<v>\S+)\s+(?:x|y)`},
		{"id": "strong", "pattern": `Loss is NaN`},
	}, []map[string]any{
		{"id": "loose", "pattern": `(?i)\bstep=(?P<step>\d+)\s+(?:x|y)`},
	})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := logscan.WriteHealthyLog(&log, "plain", 3000, 1); err != nil {
		t.Fatal(err)
	}
	rates, err := s.CandidateRates(&log)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]logscan.Rate{}
	for _, r := range rates {
		got[r.ID] = r
	}
	if got["weak"].CandidateRate() < 0.5 || got["weak"].Confirmed != 0 {
		t.Errorf("weak: %s", got["weak"])
	}
	if got["strong"].Candidates != 0 {
		t.Errorf("strong: %s", got["strong"])
	}
	if got["loose"].WastedRate() < 0.5 {
		t.Errorf("loose: %s", got["loose"])
	}
}
