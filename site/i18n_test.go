package site

import (
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func TestLabelParity(t *testing.T) {
	c, err := loadLabels()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range languages {
		for key, v := range c[lang] {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: %s is empty", lang, key)
			}
		}
	}
	for key := range c["en"] {
		if _, ok := c["zh"][key]; !ok {
			t.Errorf("zh.yaml lacks %s", key)
		}
	}
	for key := range c["zh"] {
		if _, ok := c["en"][key]; !ok {
			t.Errorf("en.yaml lacks %s (present in zh.yaml)", key)
		}
	}
	// Placeholders must agree, or a translation silently drops a value.
	ph := regexp.MustCompile(`\{[a-z]+\}`)
	for key, en := range c["en"] {
		a, b := ph.FindAllString(en, -1), ph.FindAllString(c["zh"][key], -1)
		sort.Strings(a)
		sort.Strings(b)
		if strings.Join(a, ",") != strings.Join(b, ",") {
			t.Errorf("%s: placeholders %v in en, %v in zh", key, a, b)
		}
	}
}

// TestTemplateKeysExist: every key the templates ask for is in the
// catalogue; T would otherwise show the bare key.
func TestTemplateKeysExist(t *testing.T) {
	use := regexp.MustCompile(`\.Tf? "([a-z_.]+)"`)
	err := fs.WalkDir(templateFS, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := templateFS.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range use.FindAllStringSubmatch(string(b), -1) {
			if !hasLabel(m[1]) {
				t.Errorf("%s uses missing key %q", p, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCategoryLabels: every category of the built-in taxonomy has a name
// for people in both languages.
func TestCategoryLabels(t *testing.T) {
	in := reportsInput(t)
	for cat := range in.Categories {
		if !hasLabel("cat." + cat) {
			t.Errorf("no label cat.%s", cat)
		}
	}
}
