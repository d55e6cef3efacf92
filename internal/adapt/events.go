package adapt

import (
	"cmp"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"

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
	// Candidates come from the index by the objects the job is about, in
	// the snapshot's order, which the merge below and its ties keep.
	var cands []indexedEvent
	for k := range about {
		cands = append(cands, ix.eventsAbout[k]...)
	}
	for n := range nodes {
		cands = append(cands, ix.eventsAbout[eventKey("Node", n)]...)
	}
	sort.Slice(cands, func(a, b int) bool { return cands[a].seq < cands[b].seq })
	merged := map[string]*evidence.Event{}
	var order []string
	for i := range cands {
		e := cands[i].e
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

// indexedEvent is an event read once, with its place in the snapshot.
type indexedEvent struct {
	seq int
	e   evidence.Event
}

// eventKey is what an event is about, as eventsOf asks for it.
func eventKey(kind, name string) string { return kind + "/" + name }

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

// readEvent reads an event of either API: core/v1, or events.k8s.io/v1,
// whose fields were renamed (regarding, note, deprecated*).
func readEvent(o *snapshot.Object) evidence.Event {
	if e := o.EventV1(); e != nil {
		return eventV1(e, o.Namespace)
	}
	e := o.Event()
	ev := evidence.Event{
		Type: e.Type, Reason: e.Reason, Message: e.Message,
		Object: eventRef(e.InvolvedObject, o.Namespace),
		Count:  int(e.Count),
		Source: cmp.Or(e.Source.Component, e.ReportingController),
	}
	lastObserved := ""
	if e.Series != nil {
		ev.Count = max(ev.Count, int(e.Series.Count))
		lastObserved = microTimeString(e.Series.LastObservedTime)
	}
	ev.FirstTime = cmp.Or(timeString(e.FirstTimestamp), microTimeString(e.EventTime), timeString(e.CreationTimestamp))
	ev.LastTime = cmp.Or(lastObserved, timeString(e.LastTimestamp), microTimeString(e.EventTime), ev.FirstTime)
	ev.Count = max(ev.Count, 1)
	return ev
}

func eventV1(e *eventsv1.Event, namespace string) evidence.Event {
	ev := evidence.Event{
		Type: e.Type, Reason: e.Reason, Message: e.Note,
		Object: eventRef(e.Regarding, namespace),
		Count:  int(e.DeprecatedCount),
		Source: cmp.Or(e.DeprecatedSource.Component, e.ReportingController),
	}
	lastObserved := ""
	if e.Series != nil {
		ev.Count = max(ev.Count, int(e.Series.Count))
		lastObserved = microTimeString(e.Series.LastObservedTime)
	}
	ev.FirstTime = cmp.Or(timeString(e.DeprecatedFirstTimestamp), microTimeString(e.EventTime), timeString(e.CreationTimestamp))
	ev.LastTime = cmp.Or(lastObserved, timeString(e.DeprecatedLastTimestamp), microTimeString(e.EventTime), ev.FirstTime)
	ev.Count = max(ev.Count, 1)
	return ev
}

// eventRef is the object an event is about; events about nodes have no
// namespace, whatever the event's own.
func eventRef(r corev1.ObjectReference, namespace string) evidence.Ref {
	ref := evidence.Ref{Kind: r.Kind, APIVersion: r.APIVersion, Namespace: cmp.Or(r.Namespace, namespace), Name: r.Name}
	if ref.Kind == "Node" {
		ref.Namespace = ""
	}
	return ref
}
