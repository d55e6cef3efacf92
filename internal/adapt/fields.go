package adapt

import (
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Custom resources are read with apimachinery's unstructured helpers. The
// few wrappers here drop the (found, error) results where absent and
// mistyped mean the same to a diagnosis: not said.

// str returns the string at path, or "".
func str(m map[string]any, path ...string) string {
	s, _, _ := unstructured.NestedString(m, path...)
	return s
}

// integer returns the integer at path and whether there is one.
func integer(m map[string]any, path ...string) (int, bool) {
	n, ok, err := unstructured.NestedInt64(m, path...)
	return int(n), ok && err == nil
}

func intPtr(m map[string]any, path ...string) *int {
	if n, ok := integer(m, path...); ok {
		return &n
	}
	return nil
}

// boolean returns the boolean at path, false when absent.
func boolean(m map[string]any, path ...string) bool {
	b, _, _ := unstructured.NestedBool(m, path...)
	return b
}

// object returns the map at path, or nil. Unlike unstructured.NestedMap it
// does not copy: adapters only read.
func object(m map[string]any, path ...string) map[string]any {
	v, _, _ := unstructured.NestedFieldNoCopy(m, path...)
	o, _ := v.(map[string]any)
	return o
}

// objects returns the maps of the list at path; other elements are left
// out.
func objects(m map[string]any, path ...string) []map[string]any {
	v, _, _ := unstructured.NestedFieldNoCopy(m, path...)
	list, _ := v.([]any)
	var out []map[string]any
	for _, x := range list {
		if o, ok := x.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// resources returns the resource list at path (requests, a node's
// capacity, a quota) with each quantity as written: typed objects would
// give the canonical form ("2113428480Ki" becomes "2063895Mi"), and the
// evidence promises what the object said. Nil when there is none.
func resources(m map[string]any, path ...string) map[string]string {
	src := object(m, path...)
	if len(src) == 0 {
		return nil
	}
	out := make(map[string]string, len(src))
	for k := range src {
		if q := quantityAt(src, k); q != "" {
			out[k] = q
		}
	}
	return out
}

// quantityAt returns the field at path as written: a string, or a number
// where YAML made one of it (a quantity "8", a count of processes per node
// that kinds declare as a string but people write as 8).
func quantityAt(m map[string]any, path ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(m, path...)
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// timeString formats a time as the API server does; "" for none.
func timeString(t metav1.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// microTimeString formats a MicroTime (events) as the API server does.
func microTimeString(t metav1.MicroTime) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(metav1.RFC3339Micro)
}

func timePtrString(t *metav1.Time) string {
	if t == nil {
		return ""
	}
	return timeString(*t)
}
