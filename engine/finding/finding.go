// Package finding is the vocabulary a finding is written in: its
// severities, its owners and text in every report language. It is the one
// thing the rule engine (engine/policy) and the result model
// (engine/report) share, so that the engine reads evidence and returns
// findings without knowing the report, and the report builds on the
// engine's words instead of the other way round.
package finding

// Severities from lowest to highest.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityError    = "error"
	SeverityCritical = "critical"
)

// SeverityRank orders severities; unknown severities rank lowest.
func SeverityRank(s string) int {
	switch s {
	case SeverityInfo:
		return 1
	case SeverityWarning:
		return 2
	case SeverityError:
		return 3
	case SeverityCritical:
		return 4
	}
	return 0
}

// ValidSeverity reports whether s is one of the four severities.
func ValidSeverity(s string) bool { return SeverityRank(s) > 0 }

// Owners: who acts on a finding.
const (
	OwnerUser     = "user"     // the job's code or configuration
	OwnerPlatform = "platform" // scheduling, quota, images, network setup
	OwnerHardware = "hardware" // GPUs, links, nodes
)

// ValidOwner reports whether s is one of the three owners.
func ValidOwner(s string) bool {
	return s == OwnerUser || s == OwnerPlatform || s == OwnerHardware
}

// Text is a string in every report language.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// In returns the text in lang, falling back to English.
func (t Text) In(lang string) string {
	if lang == "zh" && t.Zh != "" {
		return t.Zh
	}
	return t.En
}
