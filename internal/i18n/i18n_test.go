package i18n_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/internal/i18n"
)

// Every namespace has the same keys in every language, with the same
// placeholders, and no empty string: a key present in one language only
// would show English (or the key) in the other.
func TestCataloguesMatch(t *testing.T) {
	nss, err := i18n.Namespaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"engine", "prompt", "report", "site", "terms", "text"} {
		if !slices.Contains(nss, want) {
			t.Errorf("no catalogue namespace %q (have %v)", want, nss)
		}
	}
	for _, ns := range nss {
		base, err := i18n.Keys(i18n.Default, ns)
		if err != nil {
			t.Fatal(err)
		}
		if len(base) == 0 {
			t.Errorf("namespace %s: no keys", ns)
		}
		for _, lang := range i18n.Languages {
			keys, err := i18n.Keys(lang, ns)
			if err != nil {
				t.Fatal(err)
			}
			if missing := minus(base, keys); len(missing) > 0 {
				t.Errorf("%s.%s.yaml lacks %v", ns, lang, missing)
			}
			if extra := minus(keys, base); len(extra) > 0 {
				t.Errorf("%s.%s.yaml has keys English lacks: %v", ns, lang, extra)
			}
			for _, k := range keys {
				s := i18n.T(lang, k)
				if strings.TrimSpace(s) == "" || s == k {
					t.Errorf("%s: %s is empty", lang, k)
				}
				if got, want := i18n.Placeholders(s), i18n.Placeholders(i18n.T(i18n.Default, k)); !slices.Equal(got, want) {
					t.Errorf("%s: %s has placeholders %v, English has %v", lang, k, got, want)
				}
			}
		}
	}
}

func minus(a, b []string) []string {
	have := map[string]bool{}
	for _, x := range b {
		have[x] = true
	}
	var out []string
	for _, x := range a {
		if !have[x] {
			out = append(out, x)
		}
	}
	return out
}

// Every rule's METADATA carries its title, description, message and
// remediation in every language: rule texts are the other half of what a
// reader reads, and they live beside each rule, not here.
func TestRuleTextsInEveryLanguage(t *testing.T) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		t.Fatalf("load policies: %v", err)
	}
	rules := e.Rules()
	if len(rules) == 0 {
		t.Fatal("no rules loaded")
	}
	for _, r := range rules {
		for name, txt := range map[string]map[string]string{
			"title":       {"en": r.Title.En, "zh": r.Title.Zh},
			"description": {"en": r.Description.En, "zh": r.Description.Zh},
			"message":     {"en": r.Message.En, "zh": r.Message.Zh},
			"remediation": {"en": r.Remediation.En, "zh": r.Remediation.Zh},
		} {
			for _, lang := range i18n.Languages {
				if strings.TrimSpace(txt[lang]) == "" {
					t.Errorf("rule %s (%s:%d): %s has no %s text", r.ID, r.File, r.Line, name, lang)
				}
			}
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct{ lang, key, want string }{
		{"en", "terms.state.healthy", "Healthy"},
		{"zh", "terms.state.healthy", "健康"},
		{"zh-CN", "terms.state.healthy", "健康"},
		{"ZH_tw", "terms.state.healthy", "健康"},
		{"fr", "terms.state.healthy", "Healthy"},
		{"en", "no.such.key", "no.such.key"},
	}
	for _, tc := range tests {
		if got := i18n.T(tc.lang, tc.key); got != tc.want {
			t.Errorf("T(%q, %q) = %q, want %q", tc.lang, tc.key, got, tc.want)
		}
	}
	if got := i18n.Tf("en", "report.evidence.count", "n", "3"); got != "seen 3 times" {
		t.Errorf("Tf = %q", got)
	}
	if got := i18n.TMap("zh", "engine.summary.subjects.pod", map[string]string{"n": "63", "title": "NCCL 超时"}); got != "63 个 Pod：NCCL 超时" {
		t.Errorf("TMap = %q", got)
	}
}

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"{a} and {b} and {a}", []string{"a", "b"}},
		{"no { closing", nil},
		{"{} {x y} {z}", []string{"z"}},
	}
	for _, tc := range tests {
		if got := i18n.Placeholders(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Placeholders(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// A catalogue file must be named <namespace>.<language>.yaml with a known
// language, and parse as a map of strings.
func TestParseRejects(t *testing.T) {
	for name, fs := range map[string]fstest.MapFS{
		"unknown language": {"c/report.fr.yaml": {Data: []byte("a: b\n")}},
		"no language":      {"c/report.yaml": {Data: []byte("a: b\n")}},
		"not a map":        {"c/report.en.yaml": {Data: []byte("- a\n")}},
	} {
		if _, err := i18n.ParseForTest(fs, "c"); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	c, err := i18n.ParseForTest(fstest.MapFS{
		"c/report.en.yaml": {Data: []byte("a: A\n")},
		"c/report.zh.yaml": {Data: []byte("a: 甲\n")},
	}, "c")
	if err != nil {
		t.Fatal(err)
	}
	if got := c["zh"]["report.a"]; got != "甲" {
		t.Errorf("report.a in zh = %q", got)
	}
}
