package snapshot

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/ziptest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FuzzParseObjects feeds arbitrary bytes as one object file. Parsing must
// not panic; every warning names the file; every object read is a named
// Kubernetes object from that file whose fields hold only JSON-like values,
// so apimachinery's unstructured helpers can walk them, and every core
// kind has its typed value, decoded or not.
func FuzzParseObjects(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "mixed", "*"))
	more, _ := filepath.Glob(filepath.Join("testdata", "mixed", "*", "*.json"))
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const rel = "f.yaml"
		objs, warns := parseObjects(data, rel)
		for _, w := range warns {
			if !strings.HasPrefix(w, rel+": ") {
				t.Errorf("warning does not name the file: %q", w)
			}
		}
		if bytes.IndexByte(data, 0) >= 0 && (len(objs) != 0 || len(warns) != 1) {
			t.Errorf("binary input: %d objects, warnings %q", len(objs), warns)
		}
		for _, o := range objs {
			if o.File != rel || o.Kind == "" || o.APIVersion == "" || o.Name == "" {
				t.Errorf("object %+v", o)
			}
			checkJSONLike(t, o.Raw, 0)
			// The unstructured helpers must be able to walk every object.
			u := o.Unstructured()
			_, _, _ = unstructured.NestedString(u.Object, "spec", "nodeName")
			_, _, _ = unstructured.NestedInt64(u.Object, "spec", "replicas")
			_ = u.GetLabels()
			if k := typedKinds[schema.GroupKind{Group: o.Group, Kind: o.Kind}]; k != nil && o.typed == nil {
				t.Errorf("%s %s has no typed value", o.Kind, o.Name)
			}
		}
		again, warns2 := parseObjects(data, rel)
		if len(again) != len(objs) || strings.Join(warns2, "\n") != strings.Join(warns, "\n") {
			t.Errorf("second parse differs: %d objects %q, then %d objects %q", len(objs), warns, len(again), warns2)
		}
	})
}

// checkJSONLike fails when v holds something that is not a JSON-like
// value, as unstructured objects need: a map with non-string keys or a
// time.
func checkJSONLike(t *testing.T, v any, depth int) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			checkJSONLike(t, e, depth+1)
		}
	case []any:
		for _, e := range x {
			checkJSONLike(t, e, depth+1)
		}
	case map[any]any, time.Time, *time.Time:
		t.Fatalf("not normalised at depth %d: %T", depth, v)
	}
}

// FuzzReadZip feeds arbitrary bytes as a zip archive of a snapshot. Reading
// must not panic and, when the archive opens, every warning names what it
// is about and every log and exec folder the snapshot lists opens through
// it or fails with an error, never a panic.
func FuzzReadZip(f *testing.F) {
	for _, dir := range []string{"v2", "mixed"} {
		f.Add(ziptest.Folder(f, filepath.Join("testdata", dir), ""))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := readZip(bytes.NewReader(data), int64(len(data)), "f.zip")
		if err != nil {
			if !strings.Contains(err.Error(), "f.zip") {
				t.Errorf("error does not name the archive: %v", err)
			}
			return
		}
		for _, w := range s.Warnings {
			if w == "" || !strings.Contains(w, ":") {
				t.Errorf("warning names nothing: %q", w)
			}
		}
		for _, o := range s.Objects {
			if o.Kind != "Pod" {
				continue
			}
			for _, ref := range s.PodLogs(o.Namespace, o.Name) {
				if f, err := s.Open(ref.Rel); err == nil {
					_, _ = io.Copy(io.Discard, io.LimitReader(f, 1<<20))
					f.Close()
				}
			}
			if dir, ok := s.PodExec(o.Namespace, o.Name); ok {
				_, _ = fs.ReadDir(s.FS(), dir)
			}
		}
	})
}
