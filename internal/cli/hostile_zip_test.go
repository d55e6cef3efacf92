package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/internal/ziptest"
)

// TestHostileZipSnapshot: a snapshot given as a zip archive whose entries
// claim places outside it ("../../x", "/etc/x") is diagnosed with every
// such entry named in the warnings, nothing is written or read outside the
// archive, and its jobs are the jobs of the folder it was made from.
func TestHostileZipSnapshot(t *testing.T) {
	dir := t.TempDir()
	var jobs []hostileJob
	for _, n := range hostileNames[:4] {
		jobs = append(jobs, hostileJob{Namespace: n.ns, Name: n.name, Events: []string{"Back-off restarting failed container"}})
	}
	writeHostileSnapshot(t, dir, jobs...)

	files := ziptest.Files(t, dir, "snap")
	pod := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"stowaway","namespace":"ml"}}`)
	files["../../escape.json"] = pod
	files["/etc/evil.json"] = pod
	parent := t.TempDir()
	archive := filepath.Join(parent, "ticket.zip")
	mustWrite(t, archive, ziptest.Archive(t, files))
	before := treeOf(t, parent)

	fromDir := runBounded(t, false, "diagnose", "--snapshot", dir, "-o", "json")
	fromZip := runBounded(t, false, "diagnose", "--snapshot", archive, "-o", "json")
	if fromZip.code != fromDir.code {
		t.Fatalf("exit %d from the archive, %d from the folder: %s", fromZip.code, fromDir.code, fromZip.stderr)
	}
	var dj, zj struct {
		Warnings []string `json:"warnings"`
		Jobs     []struct {
			Kind, Namespace, Name string
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(fromDir.stdout), &dj); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(fromZip.stdout), &zj); err != nil {
		t.Fatal(err)
	}
	if len(zj.Jobs) != len(jobs) || !slices.Equal(zj.Jobs, dj.Jobs) {
		t.Errorf("jobs from the archive %+v, from the folder %+v", zj.Jobs, dj.Jobs)
	}
	for _, name := range []string{"../../escape.json", "/etc/evil.json"} {
		if !slices.ContainsFunc(zj.Warnings, func(w string) bool { return strings.Contains(w, name) && strings.Contains(w, "not read") }) {
			t.Errorf("warnings %q do not name %s as not read", zj.Warnings, name)
		}
	}
	if strings.Contains(fromZip.stdout, "stowaway") {
		t.Error("an entry named outside the archive was read as part of the snapshot")
	}
	if after := treeOf(t, parent); !slices.Equal(before, after) {
		t.Errorf("reading the archive changed its folder: %q, was %q", after, before)
	}
}
