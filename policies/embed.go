// Package policies holds traindoc's built-in Rego rules, embedded into the
// binary. Each rule is a folder rules/<area>/<name>/ holding the package
// traindoc.rules.<area>.<name> in <name>.rego, documented by a METADATA
// block, its tests in <name>_test.rego and its example lines in lines.yaml.
// The rule's id (<area>-<name>) and default category (<area>.<name>) come
// from the path. Shared helpers live in lib/.
package policies

import "embed"

// FS holds main.rego, lib/ and rules/.
//
//go:embed main.rego lib rules
var FS embed.FS
