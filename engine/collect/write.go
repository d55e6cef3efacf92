package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// safeName turns an object name (attacker-controllable: it can come from
// any user who can create pods) into a single path element. Kubernetes names
// are DNS subdomains, so valid names pass through unchanged; anything else is
// rewritten so it can never contain a separator, be "." or "..", or be empty.
func safeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	s := b.String()
	if s == "" || strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	// A leading dot would hide the file and "..x" is confusing; keep names plain.
	if strings.HasPrefix(s, ".") {
		s = "_" + s[1:]
	}
	const maxLen = 200 // well below NAME_MAX (255) once ".previous.log" is added
	if len(s) > maxLen {
		s = s[:maxLen]
	}
	return s
}

// safeJoin joins path elements derived from object names below root and
// refuses any result outside root, as a second line of defence behind safeName.
func safeJoin(root string, elems ...string) (string, error) {
	parts := []string{root}
	for _, e := range elems {
		parts = append(parts, safeName(e))
	}
	p := filepath.Join(parts...)
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("path %q escapes %s", p, root)
	}
	return p, nil
}

// writeFile writes data to path, creating parent directories.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// sortObjects orders objects by namespace, name, then kind so that output is
// byte-for-byte reproducible for the same cluster state.
func sortObjects(objs []*unstructured.Unstructured) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if a.GetNamespace() != b.GetNamespace() {
			return a.GetNamespace() < b.GetNamespace()
		}
		if a.GetName() != b.GetName() {
			return a.GetName() < b.GetName()
		}
		return a.GetAPIVersion()+"/"+a.GetKind() < b.GetAPIVersion()+"/"+b.GetKind()
	})
}

// marshalList renders objects as a `kind: List`, the shape `kubectl get -o
// yaml` prints. sigs.k8s.io/yaml goes through JSON, so map keys come out sorted.
func marshalList(objs []*unstructured.Unstructured) ([]byte, error) {
	items := make([]any, 0, len(objs))
	for _, o := range objs {
		items = append(items, o.Object)
	}
	list := map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
		"items":      items,
	}
	out, err := yaml.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("marshal list: %w", err)
	}
	return out, nil
}

// cleanObject strips fields that are noise for diagnosis or unsafe to keep,
// masks secrets, and makes sure kind and apiVersion are set (typed clients
// leave them empty).
func cleanObject(o *unstructured.Unstructured, apiVersion, kind string) {
	if o.GetAPIVersion() == "" {
		o.SetAPIVersion(apiVersion)
	}
	if o.GetKind() == "" {
		o.SetKind(kind)
	}
	unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	if ann := o.GetAnnotations(); ann != nil {
		// The last-applied annotation repeats the whole spec, secrets included.
		delete(ann, "kubectl.kubernetes.io/last-applied-configuration")
		if len(ann) == 0 {
			ann = nil
		}
		o.SetAnnotations(ann)
	}
	redactObject(o.Object)
}

// redactObject masks secrets, with the vocabulary of engine/redact, in the
// fields of an object that carry credentials or free text: env values,
// annotations, container commands and arguments, and messages (of events,
// conditions, container states). It walks any kind, because job specs
// embed pod templates at different paths. Names, labels and references are
// left alone: they link objects, and no rule finds secrets in them.
func redactObject(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			switch c := child.(type) {
			case []any:
				switch k {
				case "env":
					redactEnv(c)
				case "command", "args":
					redactArgs(c)
				}
			case map[string]any:
				if k == "annotations" {
					redactAnnotations(c)
				}
			case string:
				if k == "message" || k == "note" {
					t[k] = redact.String(c)
				}
			}
			redactObject(child)
		}
	case []any:
		for _, child := range t {
			redactObject(child)
		}
	}
}

// redactEnv masks the whole value of a variable whose name says it is a
// secret (DB_PASS, WANDB_KEY, HF_AUTH), and the secrets inside any other
// value (a password in a URL).
func redactEnv(env []any) {
	for _, e := range env {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		if v, ok := m["value"].(string); ok && v != "" {
			if redact.SecretName(name) {
				m["value"] = redact.Mask
			} else {
				m["value"] = redact.String(v)
			}
		}
	}
}

// redactAnnotations masks annotations as redactEnv masks variables.
func redactAnnotations(ann map[string]any) {
	for k, v := range ann {
		s, ok := v.(string)
		if !ok || s == "" {
			continue
		}
		if redact.SecretName(k) {
			ann[k] = redact.Mask
		} else {
			ann[k] = redact.String(s)
		}
	}
}

// redactArgs masks the secrets in a command line given as a list: inside
// each argument, and the argument after a flag whose name says it is a
// secret (--password, then the password).
func redactArgs(args []any) {
	secretNext := false
	for i, a := range args {
		s, ok := a.(string)
		if !ok {
			secretNext = false
			continue
		}
		if secretNext && s != "" && !strings.HasPrefix(s, "-") {
			args[i] = redact.Mask
			secretNext = false
			continue
		}
		flag := strings.TrimLeft(s, "-")
		name, value, hasValue := strings.Cut(flag, "=")
		switch {
		case flag == s || !redact.SecretName(name):
			args[i] = redact.String(s)
		case hasValue && value != "":
			args[i] = s[:len(s)-len(value)] + redact.Mask
		default:
			// A secret flag name alone (its value is the next argument),
			// or text that merely starts with dashes: a PEM block.
			args[i] = redact.String(s)
		}
		secretNext = flag != s && !hasValue && redact.SecretName(name)
	}
}

// writeObjects writes one List file per resource and returns the object count.
func (c *collector) writeObjects() (int, error) {
	files := make([]string, 0, len(c.picked))
	for f := range c.picked {
		files = append(files, f)
	}
	sort.Strings(files)
	n := 0
	for _, f := range files {
		objs := c.picked[f]
		sortObjects(objs)
		data, err := marshalList(objs)
		if err != nil {
			return n, fmt.Errorf("write %s: %w", f, err)
		}
		p, err := safeJoin(c.out, f+".yaml")
		if err != nil {
			return n, err
		}
		if err := writeFile(p, data); err != nil {
			return n, err
		}
		n += len(objs)
	}
	return n, nil
}

func sortedMissing(set map[snapshot.Missing]bool) []snapshot.Missing {
	out := make([]snapshot.Missing, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		return x.What+"\x00"+x.Namespace+"\x00"+x.Pod+"\x00"+x.Container+"\x00"+x.Reason <
			y.What+"\x00"+y.Namespace+"\x00"+y.Pod+"\x00"+y.Container+"\x00"+y.Reason
	})
	return out
}

// toUnstructured converts a typed object and stamps its kind and apiVersion,
// which typed clients leave empty.
func toUnstructured(obj runtime.Object, apiVersion, kind string) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", kind, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	cleanObject(u, apiVersion, kind)
	return u, nil
}

func objKey(group, kind, ns, name string) string { return group + "/" + kind + "/" + ns + "/" + name }

// pick adds an object to the set that will be written, once.
func (c *collector) pick(file string, o *unstructured.Unstructured) bool {
	gvk := o.GroupVersionKind()
	key := objKey(gvk.Group, gvk.Kind, o.GetNamespace(), o.GetName())
	if c.seen[key] {
		return false
	}
	c.seen[key] = true
	c.picked[file] = append(c.picked[file], o)
	return true
}
