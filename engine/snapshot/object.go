package snapshot

import (
	"strconv"
	"strings"
)

// Object is one Kubernetes object as read, with the fields every adapter
// needs pulled out.
type Object struct {
	Kind       string
	APIVersion string
	// Group is the API group ("" for core).
	Group       string
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerRef
	Raw         map[string]any
	// File is the snapshot-relative file the object came from.
	File string
}

// OwnerRef is an ownerReferences entry.
type OwnerRef struct {
	Kind       string
	APIVersion string
	Name       string
	UID        string
	Controller bool
}

func newObject(m map[string]any, file string) *Object {
	o := &Object{Raw: m, File: file}
	o.Kind = Str(m, "kind")
	o.APIVersion = Str(m, "apiVersion")
	if i := strings.LastIndex(o.APIVersion, "/"); i >= 0 {
		o.Group = o.APIVersion[:i]
	}
	o.Namespace = Str(m, "metadata", "namespace")
	o.Name = Str(m, "metadata", "name")
	o.UID = Str(m, "metadata", "uid")
	o.Labels = StrMap(m, "metadata", "labels")
	o.Annotations = StrMap(m, "metadata", "annotations")
	for _, r := range Slice(m, "metadata", "ownerReferences") {
		rm, ok := r.(map[string]any)
		if !ok {
			continue
		}
		ctrl, _ := rm["controller"].(bool)
		o.Owners = append(o.Owners, OwnerRef{
			Kind: Str(rm, "kind"), APIVersion: Str(rm, "apiVersion"),
			Name: Str(rm, "name"), UID: Str(rm, "uid"), Controller: ctrl,
		})
	}
	return o
}

func (o *Object) sortKey() string {
	return o.Kind + "\x00" + o.Namespace + "\x00" + o.Name + "\x00" + o.File
}

// Key is kind/namespace/name.
func (o *Object) Key() string { return o.Kind + "/" + o.Namespace + "/" + o.Name }

// Get walks nested maps.
func Get(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// Str returns a nested string, or "".
func Str(m map[string]any, path ...string) string {
	switch v := Get(m, path...).(type) {
	case string:
		return v
	case nil:
		return ""
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int:
		return itoa(int64(v))
	case int64:
		return itoa(v)
	case float64:
		if v == float64(int64(v)) {
			return itoa(int64(v))
		}
	}
	return ""
}

// Int returns a nested integer and whether it was present.
func Int(m map[string]any, path ...string) (int, bool) {
	switch v := Get(m, path...).(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	case string:
		n, ok := atoi(v)
		return n, ok
	}
	return 0, false
}

// Bool returns a nested boolean.
func Bool(m map[string]any, path ...string) bool {
	switch v := Get(m, path...).(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

// Map returns a nested map or nil.
func Map(m map[string]any, path ...string) map[string]any {
	mm, _ := Get(m, path...).(map[string]any)
	return mm
}

// Slice returns a nested list or nil.
func Slice(m map[string]any, path ...string) []any {
	s, _ := Get(m, path...).([]any)
	return s
}

// Maps returns the map elements of a nested list.
func Maps(m map[string]any, path ...string) []map[string]any {
	var out []map[string]any
	for _, x := range Slice(m, path...) {
		if mm, ok := x.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// StrMap returns a nested map of strings.
func StrMap(m map[string]any, path ...string) map[string]string {
	src := Map(m, path...)
	if len(src) == 0 {
		return nil
	}
	out := make(map[string]string, len(src))
	for k := range src {
		out[k] = Str(src, k)
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}
