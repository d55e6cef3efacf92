package collect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/clustertest"
	"github.com/traindoc/traindoc/internal/kinds"
)

// TestIntegrationRoundTrip checks decision 6 of the architecture, "offline
// and live are one path": for every fixture, loading it into a real API
// server, collecting it back and diagnosing the result gives the same report
// as diagnosing the fixture directly.
//
// What a real API server assigns itself (uid, creationTimestamp) cannot be
// loaded, so those two fields are put back from the fixture before the
// diagnosis, and snapshot.yaml takes the fixture's collectedAt (which the
// rules use as "now") and notes. Output of commands run inside containers
// (exec/) cannot come from kwok's simulated containers, so the fixture's is
// copied; the exec path itself is covered by unit tests.
func TestIntegrationRoundTrip(t *testing.T) {
	clustertest.RequireBin(t)
	for _, fixture := range roundTripSnapshots(t) {
		name := filepath.Base(fixture)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			objs, _, err := clustertest.ReadObjects(fixture)
			if err != nil {
				t.Fatal(err)
			}
			if dup := duplicates(objs); len(dup) > 0 {
				t.Skipf("fixture holds objects twice, which no cluster can: %v", dup)
			}
			c := startWithCRDs(t, clustertest.Options{}, mpiJobVersions(objs)...)
			loaded := load(t, c, fixture, false)

			opts := collect.DefaultOptions()
			opts.AllNamespaces = true
			opts.LogBytes = 0 // whole logs, as in the fixture
			// Whole logs of 164 MB through the API server's proxy on a
			// shared machine: a log stream may take 8 minutes, not 2.
			opts.RequestTimeout = 2 * time.Minute
			// Generous, like the diagnosis below: big-million-lines streams
			// 164 MB of logs through the API server's proxy while another
			// subtest shares the two cores.
			res, dir := collectWithin(t, c, opts, 10*time.Minute)
			if len(res.Jobs) == 0 {
				t.Fatalf("no jobs collected; notes %q", res.Notes)
			}
			restoreServerFields(t, fixture, dir, loaded.PlaceholderNodes)
			if _, err := os.Stat(filepath.Join(fixture, "exec")); err == nil {
				if err := os.CopyFS(filepath.Join(dir, "exec"), os.DirFS(filepath.Join(fixture, "exec"))); err != nil {
					t.Fatal(err)
				}
			}
			if keep := os.Getenv("TRAINDOC_KEEP_SNAPSHOTS"); keep != "" {
				_ = os.CopyFS(filepath.Join(keep, name), os.DirFS(dir))
			}

			// Generous: big-million-lines scans 164 MB twice, and the
			// subtests share the machine.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			want, err := diagnose.Run(ctx, fixture, diagnose.Options{})
			if err != nil {
				t.Fatalf("diagnose fixture: %v", err)
			}
			got, err := diagnose.Run(ctx, dir, diagnose.Options{})
			if err != nil {
				t.Fatalf("diagnose collected snapshot: %v", err)
			}
			wj, gj := v1AsV2(fixture, objs, normalise(t, want)), normalise(t, got)
			if wj != gj {
				_ = os.WriteFile(filepath.Join(t.TempDir(), "want.json"), []byte(wj), 0o644)
				t.Errorf("live and offline reports differ (collected snapshot in %s; notes %q):\n%s", dir, res.Notes, lineDiff(wj, gj))
			}
		})
	}
}

// TestRoundTripCoversEveryKind: the round trip proves that live and
// offline find the same objects only for the kinds its snapshots hold, so
// every kind of the registry must occur in one of them.
func TestRoundTripCoversEveryKind(t *testing.T) {
	have := map[string]bool{}
	for _, dir := range roundTripSnapshots(t) {
		objs, _, err := clustertest.ReadObjects(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			have[o.GroupVersionKind().Group+"/"+o.GetKind()] = true
		}
	}
	crds, _, err := clustertest.ReadObjects("testdata/crds")
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, c := range crds {
		group, _, _ := unstructured.NestedString(c.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(c.Object, "spec", "names", "plural")
		served[group+"/"+plural] = true
	}
	for _, k := range kinds.All() {
		if !have[k.Group+"/"+k.Kind] {
			t.Errorf("no round-trip snapshot holds a %s (%s); add one to %s", k.Kind, k.Group, roundTripDir)
		}
		// batch/v1 is built in; every other kind needs its CRD in the test API server.
		if k.Group != "batch" && !served[k.Group+"/"+k.Resource] {
			t.Errorf("testdata/crds has no CRD for %s.%s", k.Resource, k.Group)
		}
	}
}

// duplicates returns kind/namespace/name of objects that occur more than once.
func duplicates(objs []*unstructured.Unstructured) []string {
	seen := map[string]int{}
	for _, o := range objs {
		seen[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()]++
	}
	var out []string
	for k, n := range seen {
		if n > 1 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// mpiJobVersions returns the MPIJob versions a fixture uses. A real cluster
// serves one of them (training-operator's v1 or mpi-operator's v2beta1), and
// serving both would hand objects back in whichever version sorts first.
func mpiJobVersions(objs []*unstructured.Unstructured) []string {
	set := map[string]bool{}
	for _, o := range objs {
		if gvk := o.GroupVersionKind(); gvk.Group == "kubeflow.org" && gvk.Kind == "MPIJob" {
			set[gvk.Version] = true
		}
	}
	var out []string
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// normalise renders a report as indented JSON with the fields that name the
// source (a path, a kubeconfig context) blanked.
func normalise(t *testing.T, r *report.Report) string {
	t.Helper()
	cp := *r
	cp.Source = ""
	// Warnings are about the snapshot's files (one that does not parse, say),
	// which a live collection does not reproduce.
	cp.Warnings = nil
	// A live snapshot names its cluster by the API server's address, a
	// fixture by the name its author gave.
	cp.Jobs = append([]report.Job(nil), r.Jobs...)
	for i := range cp.Jobs {
		cp.Jobs[i].Cluster = ""
	}
	data, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// v1AsV2 rewrites the names of the log files of a fixture in layout v1
// (logs/<pod>/) as the collector files them (logs/<namespace>/<pod>/), so
// that the reports of a v1 fixture and of its collection compare. The
// fixture's exec folder is copied as it is, so its names need no rewriting.
func v1AsV2(fixture string, objs []*unstructured.Unstructured, report string) string {
	for _, o := range objs {
		if o.GetKind() != "Pod" || o.GetAPIVersion() != "v1" {
			continue
		}
		if st, err := os.Stat(filepath.Join(fixture, "logs", o.GetName())); err == nil && st.IsDir() {
			report = strings.ReplaceAll(report, `"logs/`+o.GetName()+"/", `"logs/`+o.GetNamespace()+"/"+o.GetName()+"/")
		}
	}
	return report
}

// lineDiff lists the lines that differ, with a little context, up to a limit.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 30; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  offline: %s\n  live:    %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

// restoreServerFields puts the fixture's uid and creationTimestamp back on
// every collected object, and the fixture's collectedAt into snapshot.yaml.
// It also drops the placeholder nodes the loader had to create so the API
// server could proxy logs: they are not part of the fixture.
func restoreServerFields(t *testing.T, fixture, dir string, placeholders []string) {
	t.Helper()
	objs, _, err := clustertest.ReadObjects(fixture)
	if err != nil {
		t.Fatal(err)
	}
	type saved struct{ uid, created string }
	orig := map[string]saved{}
	for _, o := range objs {
		orig[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = saved{
			uid:     string(o.GetUID()),
			created: fmt.Sprint(o.Object["metadata"].(map[string]any)["creationTimestamp"]),
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range files {
		if filepath.Base(f) == "snapshot.yaml" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list map[string]any
		if err := yaml.Unmarshal(data, &list); err != nil {
			t.Fatal(err)
		}
		items, _ := list["items"].([]any)
		kept := items[:0]
		for _, it := range items {
			u := &unstructured.Unstructured{Object: it.(map[string]any)}
			if u.GetKind() != "Node" || !slices.Contains(placeholders, u.GetName()) {
				kept = append(kept, it)
			}
		}
		list["items"] = kept
		if len(kept) == 0 {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, it := range kept {
			u := &unstructured.Unstructured{Object: it.(map[string]any)}
			ns := u.GetNamespace()
			s, ok := orig[u.GetKind()+"/"+ns+"/"+u.GetName()]
			md := u.Object["metadata"].(map[string]any)
			if !ok || s.uid == "" {
				delete(md, "uid")
			} else {
				md["uid"] = s.uid
			}
			if !ok || s.created == "<nil>" {
				delete(md, "creationTimestamp")
			} else {
				md["creationTimestamp"] = s.created
			}
		}
		out, err := yaml.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var fixMeta, meta map[string]any
	if data, err := os.ReadFile(filepath.Join(fixture, "snapshot.yaml")); err == nil {
		_ = yaml.Unmarshal(data, &fixMeta)
	}
	data, err := os.ReadFile(filepath.Join(dir, "snapshot.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if at, ok := fixMeta["collectedAt"]; ok {
		meta["collectedAt"] = at
	} else {
		delete(meta, "collectedAt")
	}
	// The fixture's own notes describe what its author could not collect.
	if notes, ok := fixMeta["notes"]; ok {
		meta["notes"] = notes
	}
	out, _ := yaml.Marshal(meta)
	if err := os.WriteFile(filepath.Join(dir, "snapshot.yaml"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}
