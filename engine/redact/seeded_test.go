package redact

import "testing"

// TestSeededForms are secret forms the hostile-snapshot corpus
// (internal/cli/testdata/secrets/corpus.yaml) found leaking through every
// output, and near misses each fix must leave alone.
func TestSeededForms(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// A name glued to its secret word, as libpq and MySQL spell them.
		{"glued password env", "+ export PGPASSWORD=pgSeed-7Hq2Lx9Vb", "+ export PGPASSWORD=[REDACTED]"},
		{"glued token env", "AUTHTOKEN=abcDEF123456", "AUTHTOKEN=[REDACTED]"},
		{"glued secret in yaml", "  dbsecret: Qw3rtyUi0p", "  dbsecret: [REDACTED]"},
		// A URL with a password and no user (Redis's default user).
		{"url password without user", "redis://:redisSeedPw9q@cache.internal:6379/0", "redis://:[REDACTED]@cache.internal:6379/0"},
		// kubeconfig: the client key is base64 of a PEM private key.
		{"kubeconfig client key", "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpTZWVkZWRLdWJlS2V5", "    client-key-data: [REDACTED]"},
		{"base64 private key anywhere", "found LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2Z0lCQURB in a Secret", "found [REDACTED] in a Secret"},
		// Docker's config.json: "auth" is base64 of user:password.
		{"docker auth", `{"auths":{"registry.example":{"auth":"dHJhaW5lcjpTZWVkZWREb2NrZXJBdXRo"}}}`, `{"auths":{"registry.example":{"auth":"[REDACTED]"}}}`},
		{"docker identity token", `"identitytoken": "eyJ0eXAiOiJKV1Qi0123"`, `"identitytoken": "[REDACTED]"`},
		// A private key's body without its BEGIN line: a log excerpt
		// that starts inside the block.
		{"key body line", "MIIEpAIBAAKCAQEAseededRsaKeyLineOne0123456789abcdefABCDEF", "[REDACTED]"},
		{"key body lines", "  SeededRsaKeyLineTwo0123456789abcdefABCDEFghijkl\nnext", "  [REDACTED]\nnext"},

		// Near misses.
		{"certificate base64", "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lC", "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lC"},
		{"git sha line", "3f9a2c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291", "3f9a2c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291"},
		{"hex digest line", "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF", "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"},
		{"short mixed line", "Epoch12Done", "Epoch12Done"},
		{"path line", "/workspace/checkpoints/Step1200/ModelWeights0001.safetensors", "/workspace/checkpoints/Step1200/ModelWeights0001.safetensors"},
		{"glued count", "MAXTOKEN=2048 NUMTOKEN=12", "MAXTOKEN=2048 NUMTOKEN=12"},
		{"monkey still", "monkey=banana", "monkey=banana"},
		{"auth prose", "auth: failed for user ml", "auth: failed for user ml"},
		{"url port", "http://host:8080/a@b", "http://host:8080/a@b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}
