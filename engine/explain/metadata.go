package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
)

// MetadataKeys are the keys of Data.Metadata. They are the variables of the
// PyTorchJob diagnosis prompt format, so that templates written for it render
// unchanged; every kind fills all of them ("N/A" where a kind has no such
// replica).
var MetadataKeys = []string{
	"JobName",
	"JobStatus",
	"LauncherStatus",
	"MasterExpected",
	"MasterCreatedCount",
	"WorkerExpected",
	"WorkerCreatedCount",
	"MasterDiagnosis",
	"WorkerDiagnosis",
}

// Replica roles. Master-like types lead the job (PyTorchJob Master, TFJob
// Chief, Ray head); the launcher is MPI's; everything else counts as
// workers (Worker, Ray worker groups, TrainJob nodes, PS).
func replicaRole(typ string) string {
	switch strings.ToLower(typ) {
	case "master", "chief", "head", "headgroup", "head-group":
		return "master"
	case "launcher":
		return "launcher"
	}
	return "worker"
}

// metadata fills the PyTorchJob-diagnosis variables for any kind.
func metadata(job *report.Job, d *Data) map[string]string {
	status := job.KindPhase
	if status == "" {
		status = job.Phase
	}
	m := map[string]string{
		"JobName":   job.Name,
		"JobStatus": status,
	}
	groups := map[string][]report.Replica{}
	for _, r := range job.Replicas {
		role := replicaRole(r.Type)
		groups[role] = append(groups[role], r)
	}
	m["LauncherStatus"] = notApplicable
	if rs := groups["launcher"]; len(rs) > 0 {
		m["LauncherStatus"] = replicaStatus(sumReplicas(rs))
	}
	for _, role := range []string{"master", "worker"} {
		prefix := "Master"
		if role == "worker" {
			prefix = "Worker"
		}
		rs := groups[role]
		if len(rs) == 0 {
			m[prefix+"Expected"] = notApplicable
			m[prefix+"CreatedCount"] = notApplicable
			m[prefix+"Diagnosis"] = notApplicable
			continue
		}
		sum := sumReplicas(rs)
		m[prefix+"Expected"] = strconv.Itoa(sum.Expected)
		m[prefix+"CreatedCount"] = strconv.Itoa(sum.Created)
		m[prefix+"Diagnosis"] = replicaDiagnosis(sum, rs, d.Findings)
	}
	return m
}

func sumReplicas(rs []report.Replica) report.Replica {
	var s report.Replica
	for _, r := range rs {
		s.Expected += r.Expected
		s.Created += r.Created
		s.Pending += r.Pending
		s.Running += r.Running
		s.Succeeded += r.Succeeded
		s.Failed += r.Failed
		s.Restarts += r.Restarts
	}
	return s
}

// replicaStatus is one word for a replica group, worst state first.
func replicaStatus(r report.Replica) string {
	switch {
	case r.Failed > 0:
		return "Failed"
	case r.Created == 0:
		return "NotCreated"
	case r.Pending > 0:
		return "Pending"
	case r.Running > 0:
		return "Running"
	case r.Succeeded > 0 && r.Succeeded >= r.Expected:
		return "Succeeded"
	}
	return "Unknown"
}

// replicaDiagnosis summarises a replica group: its counts and the findings
// about its pods.
func replicaDiagnosis(sum report.Replica, rs []report.Replica, findings []Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d/%d created, %d pending, %d running, %d succeeded, %d failed, %d restarts",
		replicaStatus(sum), sum.Created, sum.Expected, sum.Pending, sum.Running, sum.Succeeded, sum.Failed, sum.Restarts)
	n := 0
	for _, f := range findings {
		if !aboutReplicas(f, rs) {
			continue
		}
		if n == maxDiagnosisFinding {
			b.WriteString("; …")
			break
		}
		fmt.Fprintf(&b, "; %s (%s): %s", f.Category, f.Severity, f.Title)
		n++
	}
	return b.String()
}

// aboutReplicas reports whether a finding names a pod of one of the replica
// types. Pods are named <job>-<type>-<index> by every Kubeflow operator and
// <cluster>-<group>-... by KubeRay.
func aboutReplicas(f Finding, rs []report.Replica) bool {
	for _, s := range f.Subjects {
		if !strings.HasPrefix(s, "pod ") {
			continue
		}
		name := strings.ToLower(strings.Fields(s)[1])
		for _, r := range rs {
			t := "-" + strings.ToLower(r.Type) + "-"
			if strings.Contains(name+"-", t) {
				return true
			}
		}
	}
	return false
}
