package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadMixed(t *testing.T) {
	s, err := Read("testdata/mixed")
	if err != nil {
		t.Fatal(err)
	}
	if s.CollectedAt != "2026-03-01T04:00:00Z" {
		t.Errorf("collectedAt = %q, want UTC 2026-03-01T04:00:00Z", s.CollectedAt)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "forbidden") {
		t.Errorf("notes = %q", s.Notes)
	}
	kinds := map[string]int{}
	for _, o := range s.Objects {
		kinds[o.Kind]++
	}
	want := map[string]int{"PyTorchJob": 1, "Pod": 1, "Event": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%s objects = %d, want %d (all: %v)", k, kinds[k], n, kinds)
		}
	}
	if kinds["Node"] != 0 {
		t.Errorf("the broken Node must not be read")
	}
	// Pods from a typed list get their kind from the list.
	var pod *Object
	for _, o := range s.Objects {
		if o.Kind == "Pod" {
			pod = o
		}
	}
	if pod == nil || pod.APIVersion != "v1" || len(pod.Owners) != 1 || pod.Owners[0].UID != "u-a" {
		t.Errorf("pod = %+v", pod)
	}
	wantWarnings := []string{
		"blob.json: binary data",
		"broken.yaml: line ",
		"config.yaml: document 1: not a Kubernetes object",
		"noname.yaml: document 1: Pod has no metadata.name",
	}
	if len(s.Warnings) != len(wantWarnings) {
		t.Fatalf("warnings = %q, want %d", s.Warnings, len(wantWarnings))
	}
	for i, w := range wantWarnings {
		if !strings.HasPrefix(s.Warnings[i], w) {
			t.Errorf("warning %d = %q, want prefix %q", i, s.Warnings[i], w)
		}
	}
	logs := s.Logs["p1"]
	if len(logs) != 2 || !logs[0].Previous || logs[1].Previous || logs[0].Container != "main" || logs[1].Rel != "logs/p1/main.log" {
		t.Errorf("logs of p1 = %+v", logs)
	}
	if l := s.Logs["p2"]; len(l) != 1 || l[0].Container != "" {
		t.Errorf("logs of p2 = %+v", l)
	}
	if s.Exec["p1"] == "" {
		t.Errorf("exec dir of p1 not indexed")
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := Read("testdata/does-not-exist"); err == nil {
		t.Error("missing directory: want error")
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file instead of directory: err = %v", err)
	}
}

func TestBadCollectedAt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "snapshot.yaml"), []byte("collectedAt: yesterday\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "snapshot.yaml") || s.CollectedAt != "" {
		t.Errorf("warnings = %q, collectedAt = %q", s.Warnings, s.CollectedAt)
	}
}
