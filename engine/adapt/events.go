package adapt

import (
	"sort"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// eventsOf returns the deduplicated events about the job, its pods, its
// child workloads, its pod groups and the nodes its pods sit on. Events
// from both core/v1 and events.k8s.io/v1 are read; repeated events with the
// same object, type, reason and message are merged with summed counts and
// the first and last times.
func (ix *index) eventsOf(job *evidence.Job) []evidence.Event {
	about := map[string]bool{job.Kind + "/" + job.Name: true}
	for _, p := range job.Pods {
		about["Pod/"+p.Name] = true
	}
	for _, c := range job.Children {
		about[c.Kind+"/"+c.Name] = true
	}
	for _, g := range job.Admission {
		about[g.Kind+"/"+g.Name] = true
	}
	nodes := map[string]bool{}
	for _, n := range job.Nodes {
		nodes[n.Name] = true
	}
	merged := map[string]*evidence.Event{}
	var order []string
	for _, o := range ix.events {
		e := readEvent(o)
		if e.Object.Kind == "Node" {
			if !nodes[e.Object.Name] {
				continue
			}
		} else if e.Object.Namespace != "" && e.Object.Namespace != job.Namespace || !about[e.Object.Kind+"/"+e.Object.Name] {
			continue
		}
		key := e.Object.Kind + "\x00" + e.Object.Name + "\x00" + e.Type + "\x00" + e.Reason + "\x00" + e.Message
		if m, ok := merged[key]; ok {
			m.Count += e.Count
			if earlier(e.FirstTime, m.FirstTime) {
				m.FirstTime = e.FirstTime
			}
			if earlier(m.LastTime, e.LastTime) {
				m.LastTime = e.LastTime
			}
			continue
		}
		ev := e
		merged[key] = &ev
		order = append(order, key)
	}
	out := make([]evidence.Event, 0, len(order))
	for _, k := range order {
		out = append(out, *merged[k])
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].FirstTime != out[b].FirstTime {
			return earlier(out[a].FirstTime, out[b].FirstTime)
		}
		return out[a].Reason+out[a].Object.Name+out[a].Message < out[b].Reason+out[b].Object.Name+out[b].Message
	})
	return out
}

// earlier reports whether a is before b; an empty time is never earlier.
func earlier(a, b string) bool {
	if a == "" {
		return false
	}
	if b == "" {
		return true
	}
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	if errA != nil || errB != nil {
		return a < b
	}
	return ta.Before(tb)
}

func readEvent(o *snapshot.Object) evidence.Event {
	m := o.Raw
	e := evidence.Event{Type: snapshot.Str(m, "type"), Reason: snapshot.Str(m, "reason")}
	obj := snapshot.Map(m, "involvedObject")
	if o.Group == "events.k8s.io" || obj == nil {
		obj = snapshot.Map(m, "regarding")
	}
	e.Object = evidence.Ref{
		Kind: snapshot.Str(obj, "kind"), APIVersion: snapshot.Str(obj, "apiVersion"),
		Namespace: firstNonEmpty(snapshot.Str(obj, "namespace"), o.Namespace), Name: snapshot.Str(obj, "name"),
	}
	if e.Object.Kind == "Node" {
		e.Object.Namespace = ""
	}
	e.Message = firstNonEmpty(snapshot.Str(m, "message"), snapshot.Str(m, "note"))
	count, ok := snapshot.Int(m, "count")
	if !ok {
		count, ok = snapshot.Int(m, "deprecatedCount")
	}
	if n, ok2 := snapshot.Int(m, "series", "count"); ok2 && n > count {
		count, ok = n, true
	}
	if !ok || count < 1 {
		count = 1
	}
	e.Count = count
	e.FirstTime = firstNonEmpty(snapshot.Str(m, "firstTimestamp"), snapshot.Str(m, "deprecatedFirstTimestamp"), snapshot.Str(m, "eventTime"), snapshot.Str(m, "metadata", "creationTimestamp"))
	e.LastTime = firstNonEmpty(snapshot.Str(m, "series", "lastObservedTime"), snapshot.Str(m, "lastTimestamp"), snapshot.Str(m, "deprecatedLastTimestamp"), snapshot.Str(m, "eventTime"), e.FirstTime)
	e.Source = firstNonEmpty(snapshot.Str(m, "source", "component"), snapshot.Str(m, "reportingComponent"), snapshot.Str(m, "reportingController"))
	return e
}
