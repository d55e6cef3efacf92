// Package policies holds traindoc's built-in Rego rules, embedded into the
// binary. Each rule is a package traindoc.rules.<area>.<name> in
// rules/<area>/<name>.rego, documented by a METADATA block, with its tests
// in <name>_test.rego beside it.
package policies

import "embed"

// FS holds main.rego, lib/ and rules/.
//
//go:embed main.rego lib rules
var FS embed.FS
