package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

func TestWriteJobFilesStaysInside(t *testing.T) {
	rep := &report.Report{SchemaVersion: report.SchemaVersion, CollectedAt: "2026-01-01T00:00:00Z"}
	for _, j := range []struct{ ns, name, kind string }{
		{"ml", "train", "PyTorchJob"},
		{"ml", "train", "RayJob"}, // same name, other kind
		{"../../etc", "passwd", "PyTorchJob"},
		{"ml", "../../../escape", "PyTorchJob"},
		{"", "..", "PyTorchJob"},
		{"ml", "a/b\\c", "PyTorchJob"},
	} {
		rep.Jobs = append(rep.Jobs, report.Job{Namespace: j.ns, Name: j.name, Kind: j.kind, Healthy: true})
	}
	out := t.TempDir()
	files, err := WriteJobFiles(out, rep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(rep.Jobs) * 4; len(files) != want {
		t.Fatalf("wrote %d files, want %d: %v", len(files), want, files)
	}
	seen := map[string]bool{}
	for _, f := range files {
		rel, err := filepath.Rel(out, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("%s is outside %s", f, out)
		}
		if seen[f] {
			t.Errorf("%s written twice", f)
		}
		seen[f] = true
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	for _, want := range []string{"ml/train.en.md", "ml/train-rayjob.zh.html", "ml/train.zh.md", "ml/train.en.html"} {
		if !seen[filepath.Join(out, want)] {
			t.Errorf("missing %s in %v", want, files)
		}
	}
}

// A link already in the output folder (a namespace folder pointing
// elsewhere) does not carry a page outside it: the write fails, naming the
// path, and the place the link points to stays empty.
func TestWriteJobFilesDoesNotFollowLinksOut(t *testing.T) {
	out, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(out, "ml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	rep := &report.Report{SchemaVersion: report.SchemaVersion, Jobs: []report.Job{{Namespace: "ml", Name: "train", Kind: "PyTorchJob", Healthy: true}}}
	_, err := WriteJobFiles(out, rep, Options{})
	if err == nil || !strings.Contains(err.Error(), "ml") {
		t.Errorf("error = %v, want one naming the linked folder", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("pages written through the link: %v", entries)
	}
}

func TestJUnitGate(t *testing.T) {
	rep := loadHandwritten(t)
	tests := []struct {
		failOn   string
		failures int
	}{
		{"critical", 0},
		{"error", 2},
		{"warning", 3},
		{"info", 3},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := Write(&b, "junit", rep, Options{FailOn: tc.failOn}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(b.String(), "<failure "); got != tc.failures {
			t.Errorf("--fail-on %s: %d failures, want %d", tc.failOn, got, tc.failures)
		}
		if !strings.Contains(b.String(), `tests="2"`) {
			t.Errorf("want one test case per job")
		}
	}
	if err := Write(&bytes.Buffer{}, "junit", rep, Options{FailOn: "bogus"}); err == nil {
		t.Error("bogus --fail-on accepted")
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "pdf", loadHandwritten(t), Options{}); err == nil {
		t.Error("unknown format accepted")
	}
}
