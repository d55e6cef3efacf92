package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/traindoc/traindoc/engine/report"
)

// TestSARIFSchema validates SARIF output against the official SARIF 2.1.0
// schema (vendored from oasis-tcs/sarif-spec).
func TestSARIFSchema(t *testing.T) {
	schemaPath := filepath.Join("testdata", "schema", "sarif-schema-2.1.0.json")
	f, err := os.Open(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	// The validator must reject what the schema forbids.
	bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"level":"bogus","message":{"text":"x"}}]}]}`)))
	if err := schema.Validate(bad); err == nil {
		t.Fatal("schema accepted an invalid result level")
	}
	reports := map[string]func(t *testing.T) []byte{
		"handwritten":    func(t *testing.T) []byte { return mustSARIF(t, loadHandwritten(t), "en") },
		"handwritten-zh": func(t *testing.T) []byte { return mustSARIF(t, loadHandwritten(t), "zh") },
	}
	// The saved reports of the golden fixtures (testdata/reports), so that
	// the schema check does not diagnose them again.
	for _, fx := range goldenFixtures {
		name := fx.name
		reports[name] = func(t *testing.T) []byte { return mustSARIF(t, loadReport(t, name), "en") }
	}
	for name, get := range reports {
		t.Run(name, func(t *testing.T) {
			out := get(t)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("SARIF does not validate: %v", err)
			}
			var log struct {
				Runs []struct {
					Tool struct {
						Driver struct{ Rules []struct{ ID string } }
					}
					Results []struct {
						RuleID    string
						RuleIndex int
					}
				}
			}
			if err := json.Unmarshal(out, &log); err != nil {
				t.Fatal(err)
			}
			for _, r := range log.Runs[0].Results {
				if rules := log.Runs[0].Tool.Driver.Rules; r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID {
					t.Errorf("result %s has ruleIndex %d that names another rule", r.RuleID, r.RuleIndex)
				}
			}
		})
	}
}

func mustSARIF(t *testing.T, rep *report.Report, lang string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, "sarif", rep, Options{Lang: lang}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
