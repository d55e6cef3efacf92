package policy

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/adapt"
)

// sameAsJSON fails unless the direct conversion of x equals the JSON
// round trip's.
func sameAsJSON(t *testing.T, name string, x any) {
	t.Helper()
	want, werr := jsonValue(x)
	got, gerr := toValue(x)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s: error %v, through JSON %v", name, gerr, werr)
	}
	if werr != nil {
		return
	}
	if got.Compare(want) != 0 {
		t.Fatalf("%s:\n got %v\nwant %v", name, got, want)
	}
}

func TestToValueEdgeCases(t *testing.T) {
	type inner struct {
		A string `json:"a"`
		B int    `json:"b,omitempty"`
	}
	type shadow struct {
		A string `json:"a"`
	}
	type outer struct {
		inner
		*shadow
		C      string            `json:"-"`
		D      string            `json:",omitempty"`
		E      *int              `json:"e,omitempty"`
		F      []string          `json:"f"`
		G      map[string]string `json:"g"`
		H      float64           `json:"h"`
		I      float32           `json:"i"`
		J      any               `json:"j"`
		K      json.RawMessage   `json:"k,omitempty"`
		L      []byte            `json:"l"`
		M      map[int]string    `json:"m"`
		N      int64             `json:"n,string"`
		O      inner             `json:"o,omitzero"`
		P      [2]uint8          `json:"p"`
		hidden int
	}
	seven := 7
	cases := map[string]any{
		"nil":             nil,
		"empty struct":    outer{},
		"embedded nil":    outer{inner: inner{A: "x", B: 2}},
		"embedded shadow": outer{inner: inner{A: "x"}, shadow: &shadow{A: "y"}},
		"full": outer{
			D: "d", E: &seven, F: []string{"a", "b"}, G: map[string]string{"z": "1", "a": "2"},
			H: 0.1 + 0.2, I: 1.5, J: map[string]any{"x": []any{1, "two", 3.5, nil, true}},
			K: json.RawMessage(`{"raw": [1, 2.50]}`), L: []byte("bytes"), M: map[int]string{3: "c", 1: "a"},
			N: 42, O: inner{A: "o"}, P: [2]uint8{1, 2}, hidden: 1,
		},
		"invalid utf-8":   map[string]string{"k\xff": "a\xffb\xc3(\xe2\x82"},
		"html":            "<a href=\"x\">&</a> \u2028",
		"tiny float":      1e-7,
		"huge float":      1e21,
		"float below e21": 123456789012345678901.0,
		"negative zero":   math.Copysign(0, -1),
		"float32 tiny":    float32(1e-7),
		"json number":     json.Number("1.50"),
		"uint":            uint64(math.MaxUint64),
		"nan":             math.NaN(),
		"inf":             []any{math.Inf(1)},
		"ast value":       ast.String("already"),
	}
	for name, x := range cases {
		sameAsJSON(t, name, x)
	}
	if _, err := toValue(math.NaN()); err == nil {
		t.Error("NaN converted; encoding/json refuses it")
	}
}

// TestToValueRandomJobs fills every field of the evidence record with
// random values, many times over, and compares the conversions.
func TestToValueRandomJobs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var job evidence.Job
		fill(r, reflect.ValueOf(&job).Elem(), 0)
		sameAsJSON(t, "random job", &job)
		if t.Failed() {
			t.Fatalf("job %d differs", i)
		}
	}
}

// TestToValueFixtures compares the conversions on the evidence of every
// bundled fixture's jobs.
func TestToValueFixtures(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/*/expected.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, p := range dirs {
		snap, err := snapshot.Read(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range adapt.Build(snap) {
			sameAsJSON(t, filepath.Dir(p)+" "+j.Name, j)
		}
	}
}

var strs = []string{"", "a", "Warning", "OOMKilled", "é中", "bad\xffbyte", "line\nbreak", "<&>", "1e5"}

// fill sets v to a random value of its type: nil, empty or populated
// containers, and numbers of every magnitude.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(r.Int64N(1<<40) - 1<<39)
	case reflect.Float64:
		choices := []float64{0, 0.5, 1e-9, 3e22, 12345.678, -0.0001, r.Float64() * math.Pow(10, float64(r.IntN(40)-20))}
		v.SetFloat(choices[r.IntN(len(choices))])
	case reflect.String:
		v.SetString(strs[r.IntN(len(strs))])
	case reflect.Pointer:
		if depth > 6 || r.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if depth > 6 || r.IntN(4) == 0 {
			return // nil
		}
		n := r.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if depth > 6 || r.IntN(4) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range r.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fill(r, k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth+1)
			}
		}
	}
}
