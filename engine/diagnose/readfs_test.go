package diagnose

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/internal/ziptest"
)

// zipOf packs a fixture folder into an in-memory zip archive, the way a
// snapshot is attached to a ticket.
func zipOf(t *testing.T, dir string) *zip.Reader {
	t.Helper()
	b := ziptest.Folder(t, dir, "")
	r, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDiagnoseFS: a snapshot diagnosed straight from a zip archive gets the
// report it gets from its folder: logs, exec outputs (the checkpoint
// listing, read twice) and objects all come through the fs.FS.
func TestDiagnoseFS(t *testing.T) {
	d, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"cascade-disk-full-nccl-timeout", // logs, nvidia-smi, a checkpoint listing
		"progress-gpu-idle",              // ray status
		"cascade-cuda-oom-nccl-timeout",
		"healthy-noisy-running",
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "fixtures", name)
			want, err := d.Diagnose(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.DiagnoseFS(context.Background(), zipOf(t, dir), name+".zip")
			if err != nil {
				t.Fatal(err)
			}
			wj, _ := json.MarshalIndent(want, "", " ")
			gj, _ := json.MarshalIndent(got, "", " ")
			if !bytes.Equal(wj, gj) {
				t.Errorf("report from the archive differs from the folder's:\n%s", firstDiff(string(wj), string(gj)))
			}
			if len(want.Jobs) == 0 || len(want.Jobs[0].Pods) == 0 {
				t.Fatal("fixture diagnosed to nothing: the comparison proves nothing")
			}
		})
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b string) string {
	al, bl := bytes.Split([]byte(a), []byte("\n")), bytes.Split([]byte(b), []byte("\n"))
	for i := range min(len(al), len(bl)) {
		if !bytes.Equal(al[i], bl[i]) {
			return "line " + strconv.Itoa(i+1) + ":\n folder:  " + string(al[i]) + "\n archive: " + string(bl[i])
		}
	}
	return "one is a prefix of the other"
}

// TestDiagnoseZipFile: `--snapshot snap.zip` is diagnosed as the folder it
// was made from, with or without the archive's top folder, whatever the
// file is called.
func TestDiagnoseZipFile(t *testing.T) {
	d, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "fixtures", "cascade-disk-full-nccl-timeout")
	want, err := d.Diagnose(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	wj, _ := json.MarshalIndent(want, "", " ")
	for _, tt := range []struct{ name, top string }{
		{"flat.zip", ""},
		{"folder.zip", "cascade-disk-full-nccl-timeout"},
		{"ticket-4711.bin", "snap"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tt.name)
			if err := os.WriteFile(p, ziptest.Folder(t, dir, tt.top), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := d.Diagnose(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.MarshalIndent(got, "", " ")
			if !bytes.Equal(wj, gj) {
				t.Errorf("report from %s differs from the folder's:\n%s", tt.name, firstDiff(string(wj), string(gj)))
			}
		})
	}
	// A file that is neither is refused by name.
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Diagnose(context.Background(), p); err == nil || !strings.Contains(err.Error(), "not a directory or a zip archive") || !strings.Contains(err.Error(), p) {
		t.Errorf("err = %v, want one naming %s as neither a folder nor an archive", err, p)
	}
}
