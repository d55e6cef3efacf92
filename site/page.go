package site

import (
	"path"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

// page is what every template receives: the language, where the page is
// (for relative links) and its data.
type page struct {
	Lang  string
	Path  string
	Title string
	Site  *model
	Data  any
}

// T is a site UI string in the page's language.
func (p *page) T(key string) string { return label(p.Lang, key) }

// Tf is T with {name} placeholders filled from name, value pairs.
func (p *page) Tf(key string, pairs ...any) string { return labelf(p.Lang, key, pairs...) }

// Tx picks the page's language from a report text.
func (p *page) Tx(t report.Text) string { return t.In(p.Lang) }

// HTMLLang is the value of <html lang>.
func (p *page) HTMLLang() string {
	if p.Lang == "zh" {
		return "zh-CN"
	}
	return "en"
}

// Other is the other language.
func (p *page) Other() string {
	if p.Lang == "zh" {
		return "en"
	}
	return "zh"
}

// Root is the relative URL from this page to a path from the site root.
// Links end in a file name, never a folder: file:// shows folders as
// listings instead of opening their index.html.
func (p *page) Root(target string) string { return relPath(p.Path, target) }

// relPath is the shortest relative URL from the page at from to target,
// both slash-separated paths from the site root.
func relPath(from, target string) string {
	dir := strings.Split(path.Dir(from), "/")
	if dir[0] == "." {
		dir = nil
	}
	to := strings.Split(target, "/")
	i := 0
	for i < len(dir) && i < len(to)-1 && dir[i] == to[i] {
		i++
	}
	return strings.Repeat("../", len(dir)-i) + strings.Join(to[i:], "/")
}

// Href is the relative URL of a page in this page's language.
func (p *page) Href(rel string) string { return p.Root(p.Lang + "/" + rel) }

// Alt is the same page in lang.
func (p *page) Alt(lang string) string {
	rest := strings.TrimPrefix(p.Path, p.Lang+"/")
	return p.Root(lang + "/" + rest)
}

// IsPage reports whether this page is rel in its language tree, for
// aria-current in the navigation.
func (p *page) IsPage(prefix string) bool {
	return strings.HasPrefix(strings.TrimPrefix(p.Path, p.Lang+"/"), prefix)
}

// JobHref links to a job page by slug.
func (p *page) JobHref(j *jobView) string { return p.Href("jobs/" + j.Slug + ".html") }

// RuleHref links to a rule page; "" when the rule is unknown.
func (p *page) RuleHref(id string) string {
	if r := p.Site.ruleByID[id]; r != nil {
		return p.Href("rules/" + r.Slug + ".html")
	}
	return ""
}

// CatHref links to a category page; "" when the category is unknown.
func (p *page) CatHref(name string) string {
	if c := p.Site.catByID[name]; c != nil {
		return p.Href("categories/" + c.Slug + ".html")
	}
	return ""
}

// Cat is a category's name for people, falling back to its ID.
func (p *page) Cat(name string) string { return categoryLabel(p.Lang, name) }

// Sev, Owner and Layer translate enumerations with the reports' terms,
// keeping unknown values.
func (p *page) Sev(s string) string   { return render.SeverityLabel(p.Lang, s) }
func (p *page) Owner(s string) string { return render.OwnerShort(p.Lang, s) }
func (p *page) Layer(s string) string { return render.LayerLabel(p.Lang, s) }
func (p *page) Time(s string) string  { return formatTime(s) }

func categoryLabel(lang, name string) string { return render.CategoryLabel(lang, name) }

// ChangeTitle says since when a failure recurs, for a tooltip.
func (p *page) ChangeTitle(c *change) string {
	if c.Status == statusRecurring {
		return p.Tf("change.recurring_title", "n", c.Streak, "since", formatTime(c.Since))
	}
	return p.T("change." + c.Status + "_title")
}

// State names a job state for people.
func (p *page) State(s string) string { return render.StateLabel(p.Lang, s) }
