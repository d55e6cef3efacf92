package site

import (
	"io/fs"
	"regexp"
	"testing"

	"github.com/traindoc/traindoc/render"
)

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
		if !render.HasCategoryLabel(cat) {
			t.Errorf("no label terms.category.%s", cat)
		}
	}
}
