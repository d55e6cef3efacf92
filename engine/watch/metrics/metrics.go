// Package metrics exposes what a watch measures in the Prometheus text
// format: jobs by health and primary category, findings by category,
// restarts by reason, decisions by action, and how long rounds take.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/traindoc/traindoc/engine/report"
)

// Metrics implements watch.Metrics on a registry of its own, so that two
// watchers in one process (tests) do not share series.
type Metrics struct {
	reg      *prometheus.Registry
	jobs     *prometheus.GaugeVec
	findings *prometheus.GaugeVec
	restarts *prometheus.CounterVec
	rounds   prometheus.Histogram
	failed   prometheus.Counter
	last     prometheus.Gauge
}

// New registers the watch's metrics and the Go runtime's.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		jobs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "traindoc_jobs",
			Help: "Training jobs in the last round, by health (healthy or unhealthy) and primary category.",
		}, []string{"health", "category"}),
		findings: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "traindoc_findings",
			Help: "Findings in the last round, by category (consequences included).",
		}, []string{"category"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "traindoc_restarts_total",
			Help: "Jobs restarted by the watch, by the primary category the restart answered.",
		}, []string{"reason"}),
		rounds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "traindoc_round_duration_seconds",
			Help:    "Time to collect, diagnose and act on one round.",
			Buckets: []float64{0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300},
		}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "traindoc_rounds_failed_total",
			Help: "Rounds that could not be completed (cluster unreachable, snapshot unreadable).",
		}),
		last: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "traindoc_last_round_timestamp_seconds",
			Help: "Collection time of the last round, as a Unix time.",
		}),
	}
	m.reg.MustRegister(m.jobs, m.findings, m.restarts, m.rounds, m.failed, m.last,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Round records a round's report and duration. The gauges are replaced,
// so a category that no longer occurs goes away.
func (m *Metrics) Round(rep *report.Report, d time.Duration) {
	m.jobs.Reset()
	m.findings.Reset()
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		health, category := "healthy", report.CategoryHealthy
		if !j.Healthy {
			health = "unhealthy"
		}
		if j.Primary != nil {
			category = j.Primary.Category
		}
		m.jobs.WithLabelValues(health, category).Inc()
		for _, f := range j.Findings {
			if f.Category != report.CategoryHealthy {
				m.findings.WithLabelValues(f.Category).Inc()
			}
		}
	}
	m.rounds.Observe(d.Seconds())
	if t, err := time.Parse(time.RFC3339, rep.CollectedAt); err == nil {
		m.last.Set(float64(t.Unix()))
	}
}

// RoundFailed counts a round that failed.
func (m *Metrics) RoundFailed() { m.failed.Inc() }

// Restarted counts a restart.
func (m *Metrics) Restarted(category string) { m.restarts.WithLabelValues(category).Inc() }

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry the metrics live in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }
