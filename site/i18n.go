package site

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// languages of the site, English first (the fallback).
var languages = []string{"en", "zh"}

//go:embed i18n/*.yaml
var i18nFS embed.FS

var (
	labelsOnce sync.Once
	labels     map[string]map[string]string
	labelsErr  error
)

// loadLabels reads the site's UI catalogues. They hold only what the site
// adds to the report's own strings (render.T): navigation, filters, chart
// titles and category names.
func loadLabels() (map[string]map[string]string, error) {
	labelsOnce.Do(func() {
		labels = map[string]map[string]string{}
		for _, lang := range languages {
			b, err := i18nFS.ReadFile("i18n/" + lang + ".yaml")
			if err != nil {
				labelsErr = fmt.Errorf("read site catalogue %s: %w", lang, err)
				return
			}
			m := map[string]string{}
			if err := yaml.Unmarshal(b, &m); err != nil {
				labelsErr = fmt.Errorf("parse site catalogue %s: %w", lang, err)
				return
			}
			labels[lang] = m
		}
	})
	return labels, labelsErr
}

// label returns key in lang, then in English, then the key itself so a
// missing string shows up in review instead of as a blank.
func label(lang, key string) string {
	c, _ := loadLabels()
	if s := c[lang][key]; s != "" {
		return s
	}
	if s := c["en"][key]; s != "" {
		return s
	}
	return key
}

// hasLabel reports whether key exists in the English catalogue.
func hasLabel(key string) bool {
	c, _ := loadLabels()
	_, ok := c["en"][key]
	return ok
}

// labelf fills {name} placeholders from pairs. The result is plain text:
// templates escape it.
func labelf(lang, key string, pairs ...any) string {
	s := label(lang, key)
	for i := 0; i+1 < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, "{"+fmt.Sprint(pairs[i])+"}", fmt.Sprint(pairs[i+1]))
	}
	return s
}
