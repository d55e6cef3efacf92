package snapshot

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/internal/ziptest"
)

func writeZip(t *testing.T, entries map[string]string) string {
	t.Helper()
	files := map[string][]byte{}
	for n, body := range entries {
		files[n] = []byte(body)
	}
	p := filepath.Join(t.TempDir(), "snap.zip")
	if err := os.WriteFile(p, ziptest.Archive(t, files), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadZip: a zip archive reads as the folder it holds, with its top
// folder or without; entries named outside the archive stay inside it and
// are named in a warning; logs open until Close.
func TestReadZip(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: ns}\n"
	for _, tt := range []struct {
		top      string
		evilRead bool // flat: ../evil.yaml is read as evil.yaml; below a top folder it is outside
	}{{"", true}, {"snap/", false}} {
		top := tt.top
		t.Run("top="+top, func(t *testing.T) {
			p := writeZip(t, map[string]string{
				top + "pod.yaml":           strings.ReplaceAll(pod, "%s", "p"),
				top + "snapshot.yaml":      "collectedAt: 2026-01-02T03:04:05Z\ncluster: c1\n",
				top + "logs/ns/p/main.log": "hello\n",
				top + "exec/ns/p/x.txt":    "x\n",
				"../evil.yaml":             strings.ReplaceAll(pod, "%s", "evil"),
			})
			s, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			if s.Cluster != "c1" || s.CollectedAt != "2026-01-02T03:04:05Z" {
				t.Errorf("meta = %q %q", s.Cluster, s.CollectedAt)
			}
			var names []string
			for _, o := range s.Objects {
				names = append(names, o.Name)
			}
			warned := slices.ContainsFunc(s.Warnings, func(w string) bool {
				return strings.HasPrefix(w, `archive entry "../evil.yaml": a name reaching outside the archive`)
			})
			if !warned {
				t.Errorf("warnings = %q, want one naming ../evil.yaml", s.Warnings)
			}
			if slices.Contains(names, "evil") != tt.evilRead {
				t.Errorf("objects = %q: evil read = %v, want %v", names, !tt.evilRead, tt.evilRead)
			}
			if !slices.Contains(names, "p") {
				t.Errorf("objects = %q, want p", names)
			}
			logs := s.PodLogs("ns", "p")
			if len(logs) != 1 {
				t.Fatalf("logs = %+v", logs)
			}
			f, err := s.Open(logs[0].Rel)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Open(logs[0].Rel); err == nil {
				t.Error("a log opened after Close")
			}
		})
	}
}

func TestReadNotFolderNorArchive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "snap.zip")
	if err := os.WriteFile(p, []byte("PK but not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("err = %v, want one naming %s", err, p)
	}
	if err := os.WriteFile(p, []byte("PK\x03\x04 truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("truncated archive: err = %v, want one naming %s", err, p)
	}
}

// TestReadZipBomb: an object file that inflates past the object bound is
// skipped by its declared size, without being inflated.
func TestReadZipBomb(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, err := w.Create("bomb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range maxObjectFile>>20 + 1 {
		if _, err := f.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bomb.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(buf.Bytes()) > 1<<20 || !slices.Equal(s.Warnings, []string{"bomb.yaml: larger than 256 MiB, skipped"}) {
		t.Errorf("archive of %d bytes: warnings = %q", buf.Len(), s.Warnings)
	}
}
