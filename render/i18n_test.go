package render

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/policy"
)

// Every UI string exists in every language, with the same placeholders.
func TestCatalogueComplete(t *testing.T) {
	en, err := CatalogueKeys("en")
	if err != nil {
		t.Fatal(err)
	}
	placeholder := regexp.MustCompile(`\{[a-z_]+\}`)
	for _, lang := range Languages {
		keys, err := CatalogueKeys(lang)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(keys, "\n") != strings.Join(en, "\n") {
			t.Errorf("%s.yaml keys differ from en.yaml:\n only in en: %v\n only in %s: %v",
				lang, minus(en, keys), lang, minus(keys, en))
		}
		c, _ := loadCatalogue()
		for _, k := range keys {
			v := c[lang][k]
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s.yaml: %s is empty", lang, k)
			}
			want := placeholder.FindAllString(c["en"][k], -1)
			got := placeholder.FindAllString(v, -1)
			sort.Strings(want)
			sort.Strings(got)
			if strings.Join(want, ",") != strings.Join(got, ",") {
				t.Errorf("%s.yaml: %s has placeholders %v, en.yaml has %v", lang, k, got, want)
			}
		}
	}
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

// Every key the renderer asks for is in the catalogue: T returns the key
// itself for a missing string, which is visible but wrong.
func TestCatalogueCoversRenderer(t *testing.T) {
	keys, err := CatalogueKeys("en")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, k := range keys {
		have[k] = true
	}
	rep := loadHandwritten(t)
	for _, lang := range Languages {
		md := string(ReportMarkdown(rep, lang, "test"))
		for _, k := range keys {
			if strings.Contains(md, k) && !strings.HasPrefix(k, "punct.") {
				t.Errorf("%s: rendered Markdown contains the raw key %q", lang, k)
			}
		}
	}
	// Keys built at run time from data.
	for _, prefix := range []string{"severity.", "owner.", "evidence.kind.", "timeline.kind."} {
		found := false
		for k := range have {
			if strings.HasPrefix(k, prefix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no catalogue keys with prefix %s", prefix)
		}
	}
	for _, sev := range []string{"info", "warning", "error", "critical"} {
		if !have["severity."+sev] {
			t.Errorf("missing severity.%s", sev)
		}
	}
}

// Every rule's title, message and remediation exist in both languages.
func TestRuleTextsTranslated(t *testing.T) {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		t.Fatalf("load policies: %v", err)
	}
	rules := e.Rules()
	if len(rules) == 0 {
		t.Fatal("no rules loaded")
	}
	for _, r := range rules {
		for name, txt := range map[string][2]string{
			"title":       {r.Title.En, r.Title.Zh},
			"description": {r.Description.En, r.Description.Zh},
			"message":     {r.Message.En, r.Message.Zh},
			"remediation": {r.Remediation.En, r.Remediation.Zh},
		} {
			if strings.TrimSpace(txt[0]) == "" || strings.TrimSpace(txt[1]) == "" {
				t.Errorf("rule %s (%s:%d): %s lacks a translation (en %q, zh %q)", r.ID, r.File, r.Line, name, txt[0], txt[1])
			}
		}
	}
}

func TestTFallback(t *testing.T) {
	tests := []struct{ lang, key, want string }{
		{"en", "verdict.healthy", "Healthy"},
		{"zh", "verdict.healthy", "健康"},
		{"zh-CN", "verdict.healthy", "健康"},
		{"fr", "verdict.healthy", "Healthy"},
		{"en", "no.such.key", "no.such.key"},
	}
	for _, tc := range tests {
		if got := T(tc.lang, tc.key); got != tc.want {
			t.Errorf("T(%q, %q) = %q, want %q", tc.lang, tc.key, got, tc.want)
		}
	}
	if got := Tf("en", "evidence.count", "n", "3"); got != "seen 3 times" {
		t.Errorf("Tf = %q", got)
	}
}
