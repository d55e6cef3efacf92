package site

import (
	"fmt"

	"github.com/traindoc/traindoc/internal/i18n"
)

// languages of the site: those of internal/i18n.
var languages = i18n.Languages

// label returns a string of the "site" catalogue in lang, then in English,
// then the key itself so a missing string shows up in review instead of
// as a blank.
func label(lang, key string) string { return i18n.T(lang, "site."+key) }

// hasLabel reports whether key exists in the site catalogue.
func hasLabel(key string) bool { return i18n.Has("site." + key) }

// labelf fills {name} placeholders from pairs. The result is plain text:
// templates escape it.
func labelf(lang, key string, pairs ...any) string {
	ps := make([]string, 0, len(pairs))
	for _, p := range pairs {
		ps = append(ps, fmt.Sprint(p))
	}
	return i18n.Tf(lang, "site."+key, ps...)
}
