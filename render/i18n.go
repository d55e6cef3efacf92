package render

import (
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
)

// Languages are the report languages: those of internal/i18n.
var Languages = i18n.Languages

// NormalizeLang maps a language flag value to a report language.
func NormalizeLang(lang string) string { return i18n.Normalize(lang) }

// ValidLang reports whether lang is a supported report language.
func ValidLang(lang string) bool { return i18n.Valid(lang) }

// T returns a string of the "report" catalogue in lang.
func T(lang, key string) string { return i18n.T(lang, "report."+key) }

// Tf is T with {name} placeholders filled from name, value pairs. Values
// are inserted verbatim: callers escape them for the target format first.
func Tf(lang, key string, pairs ...string) string { return i18n.Tf(lang, "report."+key, pairs...) }

// Term returns a shared term (severity, owner, layer, category, job
// state, evidence kind) of the "terms" catalogue in lang.
func Term(lang, key string) string { return i18n.T(lang, "terms."+key) }

// enumTerm translates value under prefix, keeping a value the catalogue
// does not know (a category of a user rule, a severity from a newer
// report) as it is.
func enumTerm(lang, prefix, value string) string {
	if value == "" {
		return ""
	}
	if i18n.Has("terms." + prefix + value) {
		return Term(lang, prefix+value)
	}
	return value
}

// SeverityLabel, OwnerLabel, OwnerShort, LayerLabel and CategoryLabel
// name enumerations for people, in lang.
func SeverityLabel(lang, s string) string { return enumTerm(lang, "severity.", s) }

// OwnerLabel is who acts, as a phrase ("the job's owner (code or
// configuration)"); the terminal and the reports use the same words.
func OwnerLabel(lang, s string) string {
	switch s {
	case report.OwnerUser, report.OwnerPlatform, report.OwnerHardware:
		return Term(lang, "owner."+s)
	}
	return Term(lang, "owner.unknown")
}

// OwnerShort is who acts in a table cell ("Job owner").
func OwnerShort(lang, s string) string { return enumTerm(lang, "owner_short.", s) }

// LayerLabel names a layer of the diagnosis.
func LayerLabel(lang, s string) string { return enumTerm(lang, "layer.", s) }

// CategoryLabel names a category, or returns it as it is.
func CategoryLabel(lang, c string) string { return enumTerm(lang, "category.", c) }

// HasCategoryLabel reports whether the catalogue names category c.
func HasCategoryLabel(c string) bool { return i18n.Has("terms.category." + c) }

// StateLabel names a job state (see JobState).
func StateLabel(lang, s string) string { return enumTerm(lang, "state.", s) }
