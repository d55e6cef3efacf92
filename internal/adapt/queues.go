package adapt

import (
	"cmp"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

// queuesOf returns the queues the job, its workloads, its gates and its
// pods name, and the ClusterQueue behind a named LocalQueue, in snapshot
// order.
func (ix *index) queuesOf(job *snapshot.Object, owners []*kinds.Object, gates, pods []*snapshot.Object) []evidence.Queue {
	if len(ix.queues) == 0 {
		return nil
	}
	refs := append([]*kinds.Object(nil), owners...)
	refs = append(refs, ix.kobjList(gates)...)
	refs = append(refs, ix.kobjList(pods)...)
	cands := ix.kobjList(ix.queues)
	byView := map[*kinds.Object]*snapshot.Object{}
	for i, c := range cands {
		byView[c] = ix.queues[i]
	}
	var out []evidence.Queue
	for _, q := range kinds.QueuesOf(refs, cands) {
		out = append(out, queueEvidence(byView[q]))
	}
	return out
}

// queueEvidence reads a queue of any of the registry's queue kinds.
func queueEvidence(o *snapshot.Object) evidence.Queue {
	m := o.Raw
	q := evidence.Queue{
		Ref:        evidence.Ref{Kind: o.Kind, APIVersion: o.APIVersion, Namespace: o.Namespace, Name: o.Name, UID: o.UID},
		Conditions: conditions(m, "status", "conditions"),
	}
	switch o.Group {
	case "scheduling.volcano.sh":
		q.State = cmp.Or(str(m, "status", "state"), str(m, "spec", "state"))
		q.Quota = resources(m, "spec", "capability")
		q.Allocated = resources(m, "status", "allocated")
		q.Counts = counts(m, []string{"status"}, "pending", "inqueue", "running", "unknown", "completed")
	case "scheduler.tensorstack.dev":
		if boolean(m, "spec", "closed") {
			q.State = "Closed"
		}
		q.Quota = resources(m, "spec", "quota", "requests")
		q.Allocated = resources(m, "status", "allocated")
		q.Counts = counts(m, []string{"status", "pods"}, "pending", "running", "succeeded", "failed", "unknown")
	case "kueue.x-k8s.io":
		if p := str(m, "spec", "stopPolicy"); p != "" && p != "None" {
			q.State = p
		}
		q.Counts = counts(m, []string{"status"}, "pendingWorkloads", "admittedWorkloads", "reservingWorkloads")
		if o.Kind == "LocalQueue" {
			q.ClusterQueue = str(m, "spec", "clusterQueue")
			break
		}
		q.Cohort = cmp.Or(str(m, "spec", "cohort"), str(m, "spec", "cohortName"))
		q.Quota, q.Borrowing = clusterQueueQuota(m, q.Cohort != "")
		q.Allocated = flavorSums(objects(m, "status", "flavorsReservation"), "total")
		if q.Allocated == nil {
			q.Allocated = flavorSums(objects(m, "status", "flavorsUsage"), "total")
		}
	}
	return q
}

func counts(m map[string]any, path []string, keys ...string) map[string]int {
	st := object(m, path...)
	out := map[string]int{}
	for _, k := range keys {
		if n, ok := integer(st, k); ok {
			out[k] = n
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// clusterQueueQuota sums a ClusterQueue's quota per resource over its
// resource groups and flavors: nominal plus borrowing limit. A queue in a
// cohort that sets no borrowing limit for a resource may borrow all the
// cohort's unused quota, which the queue itself does not say: such
// resources are returned in borrowing, their nominal quota a lower bound.
func clusterQueueQuota(m map[string]any, cohort bool) (map[string]string, []string) {
	sums := map[string]resource.Quantity{}
	open := map[string]bool{}
	for _, rg := range objects(m, "spec", "resourceGroups") {
		for _, fl := range objects(rg, "flavors") {
			for _, r := range objects(fl, "resources") {
				name := str(r, "name")
				addQuantity(sums, name, quantityAt(r, "nominalQuota"))
				limit := quantityAt(r, "borrowingLimit")
				switch {
				case limit != "":
					addQuantity(sums, name, limit)
				case cohort:
					open[name] = true
				}
			}
		}
	}
	var borrowing []string
	for name := range open {
		borrowing = append(borrowing, name)
	}
	sort.Strings(borrowing)
	return quantityStrings(sums), borrowing
}

// flavorSums sums status.flavorsReservation (or flavorsUsage) per
// resource over flavors; field names the quantity ("total").
func flavorSums(flavors []map[string]any, field string) map[string]string {
	sums := map[string]resource.Quantity{}
	for _, fl := range flavors {
		for _, r := range objects(fl, "resources") {
			addQuantity(sums, str(r, "name"), quantityAt(r, field))
		}
	}
	return quantityStrings(sums)
}

func addQuantity(sums map[string]resource.Quantity, name, value string) {
	if name == "" || value == "" {
		return
	}
	v, err := resource.ParseQuantity(value)
	if err != nil {
		return
	}
	s := sums[name]
	s.Add(v)
	sums[name] = s
}

func quantityStrings(sums map[string]resource.Quantity) map[string]string {
	if len(sums) == 0 {
		return nil
	}
	out := make(map[string]string, len(sums))
	for k, v := range sums {
		out[k] = v.String()
	}
	return out
}
