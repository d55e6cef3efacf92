package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

func TestDisplayPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fixtures/exec-cuda-oom/", "fixtures/exec-cuda-oom"},
		{"snap", "snap"},
		{"/home/alice/runs/snap-0412", "snap-0412"},
		{"../elsewhere/snap", "snap"},
		{"/", "snapshot"},
	}
	for _, tc := range tests {
		if got := DisplayPath(tc.in); got != tc.want {
			t.Errorf("DisplayPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A path the engine or the system wrote into a warning, a note or an
// evidence source is shown by the snapshot's name only.
func TestHidePaths(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(wd, "testdata", "snap")
	rep := &report.Report{
		Warnings: []string{abs + ": broken.yaml line 9", "open " + filepath.Join(abs, "logs/x.log") + ": permission denied"},
		Jobs: []report.Job{{Notes: []string{"collected from " + abs},
			Findings: []report.Finding{{Evidence: []report.Evidence{{Source: abs + "/exec/dmesg", File: abs + "/logs/a.log"}}}}}},
	}
	HidePaths(rep, []string{abs})
	var all strings.Builder
	if err := rep.Write(&all); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(all.String(), wd) {
		t.Errorf("a machine path is left:\n%s", all.String())
	}
	if !strings.Contains(rep.Warnings[0], "snap: broken.yaml") {
		t.Errorf("warning = %q", rep.Warnings[0])
	}
}
