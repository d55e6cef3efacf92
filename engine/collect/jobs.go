package collect

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/traindoc/traindoc/internal/kinds"
)

type nameSet map[string]bool // "kind/ns/name"

func (s nameSet) has(kind, ns, name string) bool { return s[kind+"/"+ns+"/"+name] }

func (s nameSet) add(kind, ns, name string) { s[kind+"/"+ns+"/"+name] = true }

// findJobs lists the job kinds, picks the jobs asked for, and then the
// workloads beneath them (JobSets, batch Jobs, RayClusters), as the kind
// registry links them.
func (c *collector) findJobs(ctx context.Context) error {
	var sel labels.Selector = labels.Everything()
	if c.opts.Selector != "" {
		s, err := labels.Parse(c.opts.Selector)
		if err != nil {
			return fmt.Errorf("parse selector %q: %w", c.opts.Selector, err)
		}
		sel = s
	}
	for i := range knownKinds {
		if r := knownKinds[i].Role; r == kinds.Job || r == kinds.Workload {
			c.listKind(ctx, i)
		}
	}
	if c.unreachable != nil {
		return fmt.Errorf("list jobs: %w: %w", ErrUnreachable, c.unreachable)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}

	// Every listed object of a job kind may claim a Standalone workload
	// (a RayJob its RayCluster), selected or not.
	c.listedNames = nameSet{}
	var listedJobs []*kinds.Object
	views := map[*unstructured.Unstructured]*kinds.Object{}
	for i, k := range knownKinds {
		for _, o := range c.listed[i] {
			views[o] = kobj(o)
			c.listedNames.add(k.Kind, o.GetNamespace(), o.GetName())
			if k.Role == kinds.Job {
				listedJobs = append(listedJobs, views[o])
			}
		}
	}

	set := nameSet{}
	matched := map[string]bool{}
	for i, k := range knownKinds {
		if k.Role != kinds.Job && k.Role != kinds.Workload {
			continue
		}
		for _, o := range c.listed[i] {
			if !sel.Matches(labels.Set(o.GetLabels())) {
				continue
			}
			ok, entry := c.wanted(o.GetNamespace(), o.GetName())
			if !ok {
				continue
			}
			// A workload named explicitly is diagnosed as a job.
			if len(c.opts.Jobs) == 0 && !kinds.IsJob(views[o], listedJobs) {
				continue
			}
			if c.pick(fileFor(k.GVR), o) {
				set.add(k.Kind, o.GetNamespace(), o.GetName())
				c.kJobs = append(c.kJobs, views[o])
				c.jobs = append(c.jobs, ObjectRef{Kind: k.Kind, Namespace: o.GetNamespace(), Name: o.GetName()})
				matched[entry] = true
			}
		}
	}
	for _, j := range c.opts.Jobs {
		if !matched[j] {
			c.note("job %s not found", j)
		}
	}

	// Workloads: owned by what was picked, or linked to it the way the
	// operators name them when they set no owner references.
	var candidates []*kinds.Object
	byView := map[*kinds.Object]*unstructured.Unstructured{}
	file := map[*kinds.Object]string{}
	for i, k := range knownKinds {
		if k.Role != kinds.Workload {
			continue
		}
		for _, o := range c.listed[i] {
			v := views[o]
			candidates = append(candidates, v)
			byView[v], file[v] = o, fileFor(k.GVR)
		}
	}
	c.kOwners = append([]*kinds.Object(nil), c.kJobs...)
	for _, w := range kinds.Workloads(c.kJobs, candidates) {
		if c.pick(file[w], byView[w]) {
			set.add(w.Kind, w.Namespace, w.Name)
			c.kOwners = append(c.kOwners, w)
		}
	}
	c.collected = set
	sort.Slice(c.jobs, func(i, j int) bool { return c.jobs[i].String() < c.jobs[j].String() })
	return nil
}

// jobNamespaces returns the namespaces that hold a collected object.
func (c *collector) jobNamespaces() []string {
	set := map[string]bool{}
	for _, objs := range c.picked {
		for _, o := range objs {
			if o.GetNamespace() != "" {
				set[o.GetNamespace()] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}
