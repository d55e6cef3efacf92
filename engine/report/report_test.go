package report

import (
	"slices"
	"testing"
)

func TestMerge(t *testing.T) {
	a := &Report{Source: "cluster a", CollectedAt: "2026-03-01T10:00:00Z", Warnings: []string{"x.yaml: line 3"},
		Jobs: []Job{{Namespace: "ml", Name: "b", CollectedAt: "2026-03-01T10:00:00Z", Cluster: "a"}}}
	b := &Report{Source: "cluster b", CollectedAt: "2026-03-02T10:00:00Z",
		Jobs: []Job{{Namespace: "ml", Name: "a", CollectedAt: "2026-03-02T10:00:00Z", Cluster: "b"}}}
	if got := Merge([]*Report{a}, []string{"snap-a"}); got != a {
		t.Error("one report is its own merge")
	}
	m := Merge([]*Report{a, b}, []string{"snap-a", "snap-b"})
	if m.CollectedAt != b.CollectedAt || m.Source != "" {
		t.Errorf("collectedAt %s source %q: want the newest and no common source", m.CollectedAt, m.Source)
	}
	if !slices.Equal(m.Warnings, []string{"snap-a: x.yaml: line 3"}) {
		t.Errorf("warnings = %q, want each named by its snapshot", m.Warnings)
	}
	if len(m.Jobs) != 2 || m.Jobs[0].Name != "a" || m.Jobs[0].Cluster != "b" || m.Jobs[1].CollectedAt != a.CollectedAt {
		t.Errorf("jobs = %+v, want both, sorted, each with its own snapshot's time and cluster", m.Jobs)
	}
}

func TestFailing(t *testing.T) {
	j := Job{Findings: []Finding{
		{ID: "ok", Category: CategoryHealthy, Severity: SeverityError},
		{ID: "known", Category: "exec.cuda-oom", Severity: SeverityError, Acknowledged: true},
		{ID: "w", Category: "spec.no-shm", Severity: SeverityWarning},
		{ID: "e", Category: "exec.nccl-timeout", Severity: SeverityError},
	}}
	ids := func(fs []*Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	for gate, want := range map[string][]string{"info": {"w", "e"}, "error": {"e"}, "critical": nil, "": nil} {
		if got := ids(j.Failing(gate)); !slices.Equal(got, want) {
			t.Errorf("Failing(%q) = %v, want %v", gate, got, want)
		}
	}
}
