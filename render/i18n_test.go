package render

import (
	"bytes"
	"regexp"
	"testing"
)

// rawKey matches a catalogue key that reached the output: T returns the
// key itself when a string is missing, which is visible but wrong.
var rawKey = regexp.MustCompile(`\b(?:report|terms|text|engine|site)\.[a-z_]+\.[a-z_.]+\b`)

// Every string the renderers ask for exists: no format, in no language,
// shows a raw key for any saved report.
func TestNoRawKeys(t *testing.T) {
	for _, name := range append([]string{"handwritten"}, fixtureNames()...) {
		rep := loadReport(t, name)
		for _, lang := range Languages {
			for _, format := range Names() {
				if format == "json" {
					continue // the model itself carries keys
				}
				var b bytes.Buffer
				if err := Write(&b, format, rep, Options{Lang: lang, Version: "test"}); err != nil {
					t.Fatal(err)
				}
				if m := rawKey.Find(b.Bytes()); m != nil {
					t.Errorf("%s %s %s: raw key %q in the output", name, lang, format, m)
				}
			}
		}
	}
}

func fixtureNames() []string {
	var out []string
	for _, fx := range goldenFixtures {
		out = append(out, fx.name)
	}
	return out
}

func TestTFallback(t *testing.T) {
	tests := []struct{ lang, key, want string }{
		{"en", "pods.title", "Pods"},
		{"zh", "pods.title", "Pod 列表"},
		{"zh-CN", "pods.title", "Pod 列表"},
		{"fr", "pods.title", "Pods"},
		{"en", "no.such.key", "report.no.such.key"},
	}
	for _, tc := range tests {
		if got := T(tc.lang, tc.key); got != tc.want {
			t.Errorf("T(%q, %q) = %q, want %q", tc.lang, tc.key, got, tc.want)
		}
	}
	if got := SeverityLabel("zh", "error"); got != "错误" {
		t.Errorf("SeverityLabel = %q", got)
	}
	if got := CategoryLabel("en", "user.own-category"); got != "user.own-category" {
		t.Errorf("an unknown category is kept: %q", got)
	}
}
