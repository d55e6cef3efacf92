package render

import (
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Languages are the report languages, English first; English is also the
// fallback for unknown languages.
var Languages = []string{"en", "zh"}

//go:embed i18n/*.yaml
var catalogueFS embed.FS

var (
	catalogueOnce sync.Once
	catalogue     map[string]map[string]string
	catalogueErr  error
)

// loadCatalogue parses the embedded UI catalogues once. A broken catalogue
// is a build defect, caught by the tests, so T falls back to the key rather
// than failing a report.
func loadCatalogue() (map[string]map[string]string, error) {
	catalogueOnce.Do(func() {
		catalogue = map[string]map[string]string{}
		for _, lang := range Languages {
			b, err := catalogueFS.ReadFile("i18n/" + lang + ".yaml")
			if err != nil {
				catalogueErr = fmt.Errorf("read catalogue %s: %w", lang, err)
				return
			}
			m := map[string]string{}
			if err := yaml.Unmarshal(b, &m); err != nil {
				catalogueErr = fmt.Errorf("parse catalogue %s: %w", lang, err)
				return
			}
			catalogue[lang] = m
		}
	})
	return catalogue, catalogueErr
}

// NormalizeLang maps a language flag value to a catalogue language.
func NormalizeLang(lang string) string {
	l := strings.ToLower(strings.TrimSpace(lang))
	switch {
	case l == "zh", strings.HasPrefix(l, "zh-"), strings.HasPrefix(l, "zh_"):
		return "zh"
	}
	return "en"
}

// ValidLang reports whether lang is a supported report language.
func ValidLang(lang string) bool {
	for _, l := range Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// T returns the UI string key in lang, falling back to English and then to
// the key itself so a missing string is visible rather than blank.
func T(lang, key string) string {
	c, _ := loadCatalogue()
	if s, ok := c[NormalizeLang(lang)][key]; ok && s != "" {
		return s
	}
	if s, ok := c["en"][key]; ok && s != "" {
		return s
	}
	return key
}

// Tf is T with {name} placeholders replaced from pairs (name, value, ...).
// Values are inserted verbatim: callers escape them for the target format
// first.
func Tf(lang, key string, pairs ...string) string {
	s := T(lang, key)
	for i := 0; i+1 < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, "{"+pairs[i]+"}", pairs[i+1])
	}
	return s
}

// CatalogueKeys returns the sorted keys of lang's catalogue; tests and the
// site use it to check completeness.
func CatalogueKeys(lang string) ([]string, error) {
	c, err := loadCatalogue()
	if err != nil {
		return nil, err
	}
	m, ok := c[lang]
	if !ok {
		return nil, fmt.Errorf("no catalogue for language %q", lang)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}
