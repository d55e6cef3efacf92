package site

import (
	"html/template"

	"github.com/traindoc/traindoc/render"
)

// siteCSP lets a page run and style itself only from the site's own files:
// no inline script, no inline style but the table alignments the report
// renderer writes (by hash), and no request outside the site.
var siteCSP = "default-src 'none'; script-src 'self'; style-src 'self' " + render.AlignStyleSources +
	"; img-src 'self' data:; base-uri 'none'; form-action 'none'"

// cspAttr is the content attribute of the policy's meta element. Safe: a
// constant of this package.
func cspAttr() template.HTMLAttr { return template.HTMLAttr(`content="` + siteCSP + `"`) }
