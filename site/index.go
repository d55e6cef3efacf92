package site

import (
	"sort"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

// Namespaces, Kinds, Owners and CategoriesUsed are the filter choices on
// the index.
func (m *model) Namespaces() []string {
	return distinct(m.Jobs, func(j *jobView) string { return j.Namespace })
}

func (m *model) Kinds() []string { return distinct(m.Jobs, func(j *jobView) string { return j.Kind }) }

func (m *model) Owners() []string {
	return distinct(m.Jobs, func(j *jobView) string { return j.Owner })
}

func (m *model) CategoriesUsed() []string {
	return distinct(m.Jobs, func(j *jobView) string { return j.Category })
}

// HealthyCount, Unhealthy and Held count the latest run's jobs by state;
// a suspended job or one in debug mode is held, not failing.
func (m *model) HealthyCount() int { return m.countState(render.StateHealthy) }
func (m *model) Unhealthy() int    { return m.countState(render.StateUnhealthy) }
func (m *model) Held() int {
	return m.countState(render.StateSuspended) + m.countState(render.StateDebug)
}

func (m *model) countState(s string) int {
	n := 0
	for _, j := range m.Jobs {
		if j.State == s {
			n++
		}
	}
	return n
}

// States are the job states present, for the index filter.
func (m *model) States() []string {
	return distinct(m.Jobs, func(j *jobView) string { return j.State })
}

// TopCategories are the categories most often primary among unhealthy
// jobs, at most six.
func (m *model) TopCategories() []*categoryView {
	var out []*categoryView
	for _, c := range m.Categories {
		if c.Primary > 0 && c.Name != report.CategoryHealthy {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Primary != out[b].Primary {
			return out[a].Primary > out[b].Primary
		}
		return out[a].Name < out[b].Name
	})
	if len(out) > 6 {
		out = out[:6]
	}
	return out
}

// Example is the worked example of a user rule on the catalogue page.
func (m *model) Example() []exampleFile { return exampleRule() }

// RulesOfLayer and CategoriesOfLayer group the catalogue pages.
func (m *model) CategoriesOfLayer(layer string) []*categoryView {
	var out []*categoryView
	for _, c := range m.Categories {
		if c.Layer == layer {
			out = append(out, c)
		}
	}
	return out
}
