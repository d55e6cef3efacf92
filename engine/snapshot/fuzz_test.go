package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParseObjects feeds arbitrary bytes as one object file. Parsing must
// not panic; every warning names the file; every object read is a named
// Kubernetes object from that file whose fields hold only JSON-like values,
// so the adapters' accessors can walk them.
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
			for _, p := range [][]string{{"metadata", "name"}, {"spec", "replicas"}, {"status", "phase"}} {
				_ = Str(o.Raw, p...)
				_, _ = Int(o.Raw, p...)
				_ = Bool(o.Raw, p...)
				_ = StrMap(o.Raw, p[:1]...)
				_ = Maps(o.Raw, p...)
			}
		}
		again, warns2 := parseObjects(data, rel)
		if len(again) != len(objs) || strings.Join(warns2, "\n") != strings.Join(warns, "\n") {
			t.Errorf("second parse differs: %d objects %q, then %d objects %q", len(objs), warns, len(again), warns2)
		}
	})
}

// checkJSONLike fails when v holds something normalise should have turned
// into a JSON-like value: a map with non-string keys or a time.
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
