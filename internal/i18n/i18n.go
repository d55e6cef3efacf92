// Package i18n is the one home of the words traindoc writes for people:
// every interface string of the reports, the terminal output, the static
// site, the engine's summaries and timeline entries and the LLM prompt
// blocks, in every language traindoc speaks. Rule texts are not here: they
// live in each rule's METADATA, beside the rule.
//
// Strings are grouped in namespaces, one catalogue file per namespace and
// language (catalogue/<namespace>.<lang>.yaml). A key is
// "<namespace>.<key in the file>", e.g. "report.finding.evidence".
// Placeholders are {name}; they are filled by Tf, never by a template
// engine, so a catalogue cannot run code.
package i18n

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Languages are the languages traindoc speaks, English first; English is
// also the fallback for a key or a language that is missing. This is the
// one list of languages: every other package refers to it.
var Languages = []string{"en", "zh"}

// Default is the fallback language.
const Default = "en"

//go:embed catalogue/*.yaml
var catalogueFS embed.FS

type catalogue struct {
	// strings[lang][key]
	strings map[string]map[string]string
	// namespaces in sorted order
	namespaces []string
}

var (
	loadOnce sync.Once
	loaded   *catalogue
	loadErr  error
)

// load parses the embedded catalogues once. A broken catalogue is a build
// defect that the package's tests catch, so T never fails: it falls back
// to English and then to the key itself.
func load() (*catalogue, error) {
	loadOnce.Do(func() { loaded, loadErr = parse(catalogueFS, "catalogue") })
	return loaded, loadErr
}

// parse reads every <namespace>.<lang>.yaml file under dir.
func parse(fsys fs.FS, dir string) (*catalogue, error) {
	c := &catalogue{strings: map[string]map[string]string{}}
	for _, l := range Languages {
		c.strings[l] = map[string]string{}
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read catalogues: %w", err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, ".yaml")
		if !ok || e.IsDir() {
			continue
		}
		ns, lang, ok := strings.Cut(base, ".")
		if !ok || !Valid(lang) {
			return nil, fmt.Errorf("catalogue %s: want <namespace>.<lang>.yaml with lang one of %s", name, strings.Join(Languages, ", "))
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read catalogue %s: %w", name, err)
		}
		m := map[string]string{}
		if err := yaml.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("parse catalogue %s: %w", name, err)
		}
		for k, v := range m {
			c.strings[lang][ns+"."+k] = v
		}
		if !seen[ns] {
			seen[ns] = true
			c.namespaces = append(c.namespaces, ns)
		}
	}
	sort.Strings(c.namespaces)
	return c, nil
}

// Normalize maps a language flag or tag (zh, zh-CN, zh_TW, EN) to one of
// Languages, English for anything unknown.
func Normalize(lang string) string {
	l := strings.ToLower(strings.TrimSpace(lang))
	for _, x := range Languages {
		if l == x || strings.HasPrefix(l, x+"-") || strings.HasPrefix(l, x+"_") {
			return x
		}
	}
	return Default
}

// Valid reports whether lang is exactly one of Languages.
func Valid(lang string) bool {
	for _, l := range Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// HTMLLang is the value of <html lang> for lang.
func HTMLLang(lang string) string {
	if Normalize(lang) == "zh" {
		return "zh-CN"
	}
	return Normalize(lang)
}

// T returns key in lang, falling back to English and then to the key
// itself, so that a missing string is visible rather than blank.
func T(lang, key string) string {
	c, _ := load()
	if c == nil {
		return key
	}
	if s, ok := c.strings[Normalize(lang)][key]; ok && s != "" {
		return s
	}
	if s, ok := c.strings[Default][key]; ok && s != "" {
		return s
	}
	return key
}

// Has reports whether key exists in the English catalogue.
func Has(key string) bool {
	c, _ := load()
	if c == nil {
		return false
	}
	_, ok := c.strings[Default][key]
	return ok
}

// Tf is T with {name} placeholders filled from name, value pairs. Values
// are inserted as they are: callers escape them for their output format
// first, or escape the result.
func Tf(lang, key string, pairs ...string) string {
	return Fill(T(lang, key), pairs...)
}

// Fill replaces {name} placeholders in s from name, value pairs.
func Fill(s string, pairs ...string) string {
	if len(pairs) < 2 || !strings.Contains(s, "{") {
		return s
	}
	args := make([]string, 0, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		args = append(args, "{"+pairs[i]+"}", pairs[i+1])
	}
	return strings.NewReplacer(args...).Replace(s)
}

// TMap is Tf with the placeholders in a map.
func TMap(lang, key string, params map[string]string) string {
	s := T(lang, key)
	if len(params) == 0 {
		return s
	}
	pairs := make([]string, 0, 2*len(params))
	for k, v := range params {
		pairs = append(pairs, k, v)
	}
	return Fill(s, pairs...)
}

// Keys returns the sorted keys of lang's catalogue, optionally only those
// of one namespace ("" for all).
func Keys(lang, namespace string) ([]string, error) {
	c, err := load()
	if err != nil {
		return nil, err
	}
	m, ok := c.strings[lang]
	if !ok {
		return nil, fmt.Errorf("no catalogue for language %q", lang)
	}
	var keys []string
	for k := range m {
		if namespace == "" || strings.HasPrefix(k, namespace+".") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Namespaces returns the catalogue namespaces in sorted order.
func Namespaces() ([]string, error) {
	c, err := load()
	if err != nil {
		return nil, err
	}
	return append([]string(nil), c.namespaces...), nil
}

// Placeholders returns the sorted distinct {name} placeholders of s.
func Placeholders(s string) []string {
	var out []string
	seen := map[string]bool{}
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		name := s[i+1 : i+j]
		if name != "" && !strings.ContainsAny(name, " {") && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
		s = s[i+j+1:]
	}
	sort.Strings(out)
	return out
}
