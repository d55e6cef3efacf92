package redact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestCorpus masks every entry of the seeded-secrets corpus on its own,
// as one text, line by line, and streamed: no secret survives any of them.
func TestCorpus(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "seeded-secrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus []struct {
		Form, Env, Secret, Text string
		Also                    []string
	}
	if err := yaml.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 30 {
		t.Fatalf("%d corpus entries", len(corpus))
	}
	for _, c := range corpus {
		t.Run(c.Form, func(t *testing.T) {
			secrets := append([]string{c.Secret}, c.Also...)
			outs := map[string]string{
				"String": String(c.Text),
				"Lines":  strings.Join(Lines(strings.Split(c.Text, "\n")), "\n"),
				"Bytes":  string(Bytes([]byte(c.Text + "\n"))),
			}
			if c.Env != "" {
				outs["env line"] = String(c.Env + "=" + c.Secret)
				if !SecretName(c.Env) {
					t.Errorf("SecretName(%q) = false", c.Env)
				}
			}
			for how, out := range outs {
				for _, s := range secrets {
					if strings.Contains(out, s) {
						t.Errorf("%s: %q survives in %q", how, s, out)
					}
				}
			}
		})
	}
}
