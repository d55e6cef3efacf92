package render

import (
	"strconv"
	"strings"
	"unicode"
)

// In-page links must lead somewhere on GitHub and GitLab as well as in
// traindoc's own HTML. Both forges strip explicit anchors (<a id>) and give
// each heading an id made from its text, so a link can only target a
// heading, by the id the forge computes. githubSlug is GitHub's algorithm;
// headings are worded so that GitLab's (which also folds runs of '-')
// gives the same id: no leading symbols, single spaces. The HTML renderer
// assigns exactly these ids (see headingIDs).

// githubSlug is the anchor GitHub gives a heading whose text is s: lower
// case; letters, marks, numbers, '_' and '-' kept; each space a '-';
// everything else dropped. It is not a file name: it keeps non-ASCII
// letters and has no length bound, because it must equal the id the forge
// computes (file names use internal/fsname, the site's page names
// site.slug).
func githubSlug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r), unicode.IsMark(r), unicode.IsNumber(r), unicode.Is(unicode.Pc, r), r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// slugs numbers repeated heading ids the way GitHub does: the second
// "primary-cause" becomes "primary-cause-1".
type slugs map[string]int

func (u slugs) next(text string) string {
	base := githubSlug(text)
	id := base
	for {
		if _, seen := u[id]; !seen {
			break
		}
		u[base]++
		id = base + "-" + strconv.Itoa(u[base])
	}
	u[id] = 0
	return id
}

// Link markers: a link to a heading is written before the heading may be
// (an index at the top links to jobs below), so links carry a key between
// these two private-use characters and the document is finished by
// replacing each key with the id its heading got. cleanControl removes
// both characters from all input, so no input can forge a marker.
const (
	refOpen  = '\uE000'
	refClose = '\uE001'
)

// anchors records, for one document, the id each keyed heading got.
type anchors struct {
	used  slugs
	ids   map[string]string
	first string
}

func newAnchors() *anchors { return &anchors{used: slugs{}, ids: map[string]string{}} }

// heading registers a heading with visible text and returns its id; key
// (may be "") lets links refer to it.
func (a *anchors) heading(text, key string) string {
	id := a.used.next(inlineText(text))
	if a.first == "" {
		a.first = id
	}
	if key != "" {
		if _, dup := a.ids[key]; !dup {
			a.ids[key] = id
		}
	}
	return id
}

// ref is the link target for the heading registered under key.
func ref(key string) string { return "#" + string(refOpen) + key + string(refClose) }

// resolve replaces every marker with its heading's id. A marker whose key
// names no heading leads to the document's first heading, never nowhere.
func (a *anchors) resolve(s string) string {
	if !strings.ContainsRune(s, refOpen) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexRune(s, refOpen)
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexRune(s[i:], refClose)
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		key := s[i+len(string(refOpen)) : i+j]
		if id, ok := a.ids[key]; ok {
			b.WriteString(id)
		} else {
			b.WriteString(a.first)
		}
		s = s[i+j+len(string(refClose)):]
	}
	return b.String()
}
