package render

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The CLI's -o and --lang are checked against the registry before any
// work: an unknown format or language fails at once.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		format, lang string
		ok           bool
	}{
		{"text", "en", true}, {"md", "zh", true}, {"junit", "en", true},
		{"xml", "en", false}, {"", "en", false}, {"html", "fr", false}, {"html", "ZH", false},
	} {
		err := Check(tc.format, tc.lang)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%q, %q) = %v, want ok=%v", tc.format, tc.lang, err, tc.ok)
		}
	}
	if err := Check("xml", "en"); err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
		t.Errorf("the error does not list the formats: %v", err)
	}
}

// Every format the README names is registered, once, with a summary for
// --help, and writes a report.
func TestRegistry(t *testing.T) {
	want := []string{"text", "table", "json", "markdown", "html", "sarif", "junit"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	rep := loadHandwritten(t)
	for _, f := range Formats() {
		if f.Summary == "" {
			t.Errorf("%s has no summary", f.Name)
		}
		var b bytes.Buffer
		if err := Write(&b, f.Name, rep, Options{Lang: "en"}); err != nil || b.Len() == 0 {
			t.Errorf("%s: %d bytes, %v", f.Name, b.Len(), err)
		}
	}
	if _, err := Get("md"); err != nil {
		t.Errorf("the alias md is not registered: %v", err)
	}
	if err := Write(&bytes.Buffer{}, "xml", rep, Options{}); err == nil {
		t.Error("Write accepted an unknown format")
	}
}

// writeFormat renders rep in one format for the per-format tests.
func writeFormat(t *testing.T, format, lang, name string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, format, loadReport(t, name), Options{Lang: lang, FailOn: "error", Version: "test"}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
