package render

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
)

// Golden files are rendered from saved reports (testdata/reports/*.json),
// not from a fresh diagnosis: rewording a rule changes the report, not the
// renderer, and must not churn these files. -update rewrites the goldens
// from the saved reports; -update-reports first re-diagnoses the fixture
// snapshots into those reports.
var (
	update        = flag.Bool("update", false, "rewrite golden files under testdata/golden from the saved reports")
	updateReports = flag.Bool("update-reports", false, "re-diagnose the golden fixtures into testdata/reports/*.json (implies -update)")
)

// goldenExt maps a format to the golden file extension.
var goldenExt = map[string]string{
	"text":     "txt",
	"table":    "table.txt",
	"markdown": "md",
	"html":     "html",
	"sarif":    "sarif.json",
	"junit":    "junit.xml",
}

// checkGolden compares got with testdata/golden/name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update || *updateReports {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test ./render/ -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file %s (run go test ./render/ -update and review the diff)\n%s",
			name, path, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing line, enough to see what moved.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
}

func itoa(n int) string { return strings.TrimSpace(fmtInt(n)) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// renderAll renders rep in every golden format and language and checks
// goldens named <case>.<lang>.<ext>.
func renderAll(t *testing.T, name string, rep *report.Report) {
	t.Helper()
	for _, lang := range Languages {
		for _, format := range Names() {
			ext, ok := goldenExt[format]
			if !ok {
				continue
			}
			t.Run(lang+"/"+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := Write(&b, format, rep, Options{Lang: lang, FailOn: "warning", Version: "test"}); err != nil {
					t.Fatalf("render: %v", err)
				}
				checkGolden(t, name+"."+lang+"."+ext, b.Bytes())
			})
		}
	}
}

func loadReport(t testing.TB, name string) *report.Report {
	t.Helper()
	rep, err := report.ReadFile(filepath.Join("testdata", "reports", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func loadHandwritten(t testing.TB) *report.Report { return loadReport(t, "handwritten") }

// diagnoseSnapshot runs the real pipeline over a snapshot directory.
func diagnoseSnapshot(dir string) (*report.Report, error) {
	rep, err := diagnose.Run(context.Background(), dir, diagnose.Options{Version: "test"})
	if err != nil {
		return nil, err
	}
	// The report names its source; keep it relative so goldens do not
	// depend on where the repository is checked out.
	rep.Source = strings.TrimPrefix(filepath.ToSlash(dir), "../")
	rep.Tool.Version = "test"
	return rep, nil
}

// goldenFixtures are repository fixtures with different job kinds, a
// multi-finding cascade, a 64-pod job, a running job, a suspended job and
// the payload snapshot of this package. Their reports are saved under
// testdata/reports.
var goldenFixtures = []struct{ name, dir string }{
	{"cascade-cuda-oom-nccl-timeout", "../fixtures/cascade-cuda-oom-nccl-timeout"},
	{"cascade-512-ranks", "../fixtures/cascade-512-ranks"},
	{"seed-master-oom-137", "../fixtures/seed-master-oom-137"},
	{"exec-nonzero-exit", "../fixtures/exec-nonzero-exit"},
	{"healthy-noisy-running", "../fixtures/healthy-noisy-running"},
	{"risk-running-no-shm", "../fixtures/risk-running-no-shm"},
	{"job-suspended", "../fixtures/job-suspended"},
	{"pod-image-pull", "../fixtures/pod-image-pull"},
	{"pod-config-error", "../fixtures/pod-config-error"},
	{"sched-gang-pending", "../fixtures/sched-gang-pending"},
	{"injected", "testdata/snapshots/injected"},
}

// TestSavedReports re-diagnoses the golden fixtures with -update-reports;
// otherwise it checks that every saved report still reads.
func TestSavedReports(t *testing.T) {
	for _, fx := range goldenFixtures {
		path := filepath.Join("testdata", "reports", fx.name+".json")
		if *updateReports {
			rep, err := diagnoseSnapshot(fx.dir)
			if err != nil {
				t.Fatalf("diagnose %s: %v", fx.dir, err)
			}
			var b bytes.Buffer
			if err := rep.Write(&b); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := report.ReadFile(path); err != nil {
			t.Errorf("%v (run go test ./render/ -update-reports)", err)
		}
	}
}

func TestGolden(t *testing.T) {
	names := []string{"handwritten"}
	for _, fx := range goldenFixtures {
		names = append(names, fx.name)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if *updateReports && name != "handwritten" {
				// TestSavedReports may not have run yet in this process.
				rep, err := diagnoseSnapshot(dirOf(name))
				if err != nil {
					t.Fatal(err)
				}
				renderAll(t, name, rep)
				return
			}
			renderAll(t, name, loadReport(t, name))
		})
	}
}

func dirOf(name string) string {
	for _, fx := range goldenFixtures {
		if fx.name == name {
			return fx.dir
		}
	}
	return ""
}

// The payload snapshot must put its payloads through every format as
// text, through the real pipeline.
func TestInjectedPayloadsAreText(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses a snapshot")
	}
	rep, err := diagnoseSnapshot(filepath.Join("testdata", "snapshots", "injected"))
	if err != nil {
		t.Fatal(err)
	}
	assertPayloadsLiteral(t, rep)
}
