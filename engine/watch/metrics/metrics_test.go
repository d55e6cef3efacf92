package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/report"
)

func TestMetrics(t *testing.T) {
	m := New()
	rep := &report.Report{CollectedAt: "2026-03-05T21:30:00Z", Jobs: []report.Job{
		{Name: "a", Healthy: false, Primary: &report.Finding{Category: "exec.nccl-timeout"},
			Findings: []report.Finding{{Category: "exec.nccl-timeout"}, {Category: "exec.killed"}}},
		{Name: "b", Healthy: true, Primary: &report.Finding{Category: "healthy"}, Findings: []report.Finding{{Category: "healthy"}}},
		{Name: "c", Healthy: false, Primary: &report.Finding{Category: "exec.nccl-timeout"}, Findings: []report.Finding{{Category: "exec.nccl-timeout"}}},
	}}
	m.Round(rep, 1500*time.Millisecond)
	m.Restarted("exec.nccl-timeout")
	m.RoundFailed()
	body := scrape(t, m)
	for _, want := range []string{
		`traindoc_jobs{category="exec.nccl-timeout",health="unhealthy"} 2`,
		`traindoc_jobs{category="healthy",health="healthy"} 1`,
		`traindoc_findings{category="exec.nccl-timeout"} 2`,
		`traindoc_findings{category="exec.killed"} 1`,
		`traindoc_restarts_total{reason="exec.nccl-timeout"} 1`,
		`traindoc_round_duration_seconds_count 1`,
		`traindoc_round_duration_seconds_sum 1.5`,
		`traindoc_rounds_failed_total 1`,
		`traindoc_last_round_timestamp_seconds 1.7727462e+09`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(body, `traindoc_findings{category="healthy"}`) {
		t.Error("the healthy verdict counted as a finding")
	}
	// The next round replaces the gauges.
	m.Round(&report.Report{Jobs: []report.Job{{Healthy: true, Primary: &report.Finding{Category: "healthy"}}}}, time.Second)
	body = scrape(t, m)
	if strings.Contains(body, `category="exec.nccl-timeout",health="unhealthy"`) || strings.Contains(body, `traindoc_findings{category="exec.killed"}`) {
		t.Error("gauges of the previous round kept")
	}
}

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}
