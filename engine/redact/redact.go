// Package redact masks secrets in text before it is written to a report or
// sent to a language model.
//
// Logs, events and object fields of a training job routinely carry
// credentials: a launcher that prints its environment, a failed download
// whose URL embeds a token, a service-account JSON mounted and cat-ed by a
// debugging script. traindoc treats all of that as untrusted text and runs it
// through String (or Lines) on the way out.
//
// Masking is deliberately conservative about what it calls a secret so that
// the evidence stays readable: a git sha, "token_count=123" or a pod name
// that happens to contain "sk-" are left alone. Each rule keeps the part of
// the match that says what the secret was (the variable name, the URL's user
// and host, the PEM header) and replaces only the value with Mask.
package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode"
)

// Mask replaces every secret value.
const Mask = "[REDACTED]"

// rule is one kind of secret.
type rule struct {
	name string
	// hints are lowercase literals of which at least one must occur in the
	// lowercased text before the regexp runs; most text has none of them,
	// which keeps redaction cheap on large logs.
	hints []string
	re    *regexp.Regexp
	// value is the index of the submatch holding the secret; 0 masks the
	// whole match.
	value int
	// keep, when set, vetoes a candidate value that does not look like a
	// secret (too uniform, a number, a placeholder).
	keep func(v string) bool
}

// gluedWords are the secret words long enough to be recognised when glued
// to the word before them (PGPASSWORD, AUTHTOKEN, dbsecret), as
// secretSuffixes are in SecretName; short ones (key, pass, auth) are not,
// or monkey and bypass would be secrets.
const gluedWords = `[A-Za-z0-9]*(?i:password|passwd|passphrase|secret|token|apikey|accesskey|privatekey)`

// Names of assignments whose value is a secret: the last word of the name
// (split at _, - or .) decides, so DB_PASSWORD, HF_TOKEN, client-secret and
// AWS_SECRET_ACCESS_KEY match while token_count or max_tokens do not.
const secretName = `(?:[A-Za-z0-9]+[_.-])*(?:` + gluedWords + `|(?i:pass|pwd|credentials?|api[_-]?key|key|auth|private|session|cookie))`

// colonName is secretName without the bare words that prose puts before a
// colon ("key: value", "auth: failed", "pass: 3").
// kubeconfig's client-key-data is one of them.
const colonName = `(?:(?:[A-Za-z0-9]+[_.-])*(?:` + gluedWords + `|(?i:api[_-]?key))|(?:[A-Za-z0-9]+[_.-])+(?i:key[_-]data|key|pass|pwd|auth|credentials?|private|session|cookie))`

// value is a secret value: quoted (with spaces) or bare.
const value = `"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"',;}]+`

var rules = []rule{
	{
		// PEM blocks first: their bodies would otherwise be chewed up by the
		// narrower rules and leave half a key behind. The body may contain
		// literal "\n" escapes (a key inside JSON) or real newlines.
		name:  "private-key",
		hints: []string{"private key-----"},
		re:    regexp.MustCompile(`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`),
	},
	{
		// A private key in base64, as kubeconfig's client-key-data and
		// Secret data hold it: base64 of "-----BEGIN". Certificates start
		// the same way and are public, so the value must decode to a
		// private key's armour.
		name:  "base64-private-key",
		hints: []string{"ls0tls1crudjti"},
		re:    regexp.MustCompile(`\bLS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}`),
		keep:  base64PrivateKey,
	},
	{
		// GCP service-account JSON and similar: "private_key": "...";
		// Docker's config.json: "auth" (base64 of user:password) and
		// "identitytoken".
		name:  "json-private-key",
		hints: []string{"private_key", "client_secret", "refresh_token", `"auth"`, "identitytoken", "registrytoken"},
		re:    regexp.MustCompile(`("(?:private_key|private_key_id|client_secret|refresh_token|auth|identitytoken|registrytoken)"\s*:\s*")((?:[^"\\]|\\.)*)(")`),
		value: 2,
	},
	{
		// Authorization: Bearer x / Basic x / token x, in headers and curl -H.
		name:  "authorization-header",
		hints: []string{"authorization"},
		re:    regexp.MustCompile(`(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|apikey)\s+)?)([^\s"',;]+)`),
		value: 2,
	},
	{
		name:  "bearer",
		hints: []string{"bearer"},
		re:    regexp.MustCompile(`(?i)(\bbearer\s+)([A-Za-z0-9\-._~+/]{12,}=*)`),
		value: 2,
		keep:  classes2,
	},
	{
		// JSON web tokens (Kubernetes service-account tokens, OIDC).
		name:  "jwt",
		hints: []string{"eyj"},
		re:    regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	},
	{
		// OpenAI (sk-, sk-proj-, sk-svcacct-) and Anthropic (sk-ant-) keys.
		// \b before "sk-" skips "task-..." and "disk-..."; requiring mixed
		// case and digits skips DNS names such as pod "sk-train-worker-0".
		name:  "openai-key",
		hints: []string{"sk-"},
		re:    regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`),
		keep:  generated,
	},
	{
		name:  "huggingface-token",
		hints: []string{"hf_"},
		re:    regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}\b`),
		keep:  generated,
	},
	{
		name:  "github-token",
		hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re:    regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b`),
	},
	{
		name:  "slack-token",
		hints: []string{"xox"},
		re:    regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
	},
	{
		// AWS access key IDs: long-term (AKIA) and temporary (ASIA).
		name:  "aws-access-key-id",
		hints: []string{"akia", "asia"},
		re:    regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
	},
	{
		// Google API keys.
		name:  "gcp-api-key",
		hints: []string{"aiza"},
		re:    regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`),
	},
	{
		// Azure storage and Service Bus connection strings and SAS tokens:
		// AccountKey=..., SharedAccessKey=..., sig=... (base64, maybe
		// URL-escaped).
		name:  "azure-key",
		hints: []string{"accountkey=", "sharedaccesskey=", "sig="},
		re:    regexp.MustCompile(`(?i)(\b(?:AccountKey|SharedAccessKey|sig)=)([A-Za-z0-9%+/]{20,}=*(?:%3D)*)`),
		value: 2,
	},
	{
		// Azure AD (Entra) client secrets: three characters, a digit, "Q~"
		// and thirty-odd more.
		name:  "azure-client-secret",
		hints: []string{"q~"},
		re:    regexp.MustCompile(`(?:^|[^A-Za-z0-9_~.-])([A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?:$|[^A-Za-z0-9_~.-])`),
		value: 1,
	},
	{
		// Weights & Biases API keys are 40 hex digits, like a git sha, so
		// only their context gives them away: `wandb login KEY` and the
		// ~/.netrc entry wandb writes.
		name:  "wandb-key",
		hints: []string{"wandb"},
		re:    regexp.MustCompile(`(?i)(\bwandb\s+login\s+(?:--\S+\s+)*|\bmachine\s+api\.wandb\.ai\s+login\s+\S+\s+password\s+)((?:local-)?[0-9a-f]{40})\b`),
		value: 2,
	},
	{
		// Credentials in URLs: scheme://user:password@host. The user stays
		// (it says which account), the password goes.
		name:  "url-password",
		hints: []string{"://"},
		re:    regexp.MustCompile(`(\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"'<>]*:)([^/\s"'<>]+)(@)`),
		value: 2,
	},
	{
		// A Kubernetes env entry: "name: DB_PASSWORD" then "value: ..." on
		// the next line, as kubectl get pod -o yaml prints it, or the JSON
		// form {"name":"DB_PASSWORD","value":"..."}.
		name:  "k8s-env",
		hints: []string{"value"},
		re:    regexp.MustCompile(`(["']?name["']?\s*:\s*["']?` + secretName + `["']?\s*,?\s*["']?value["']?\s*:\s*["']?)([^"'\s,}]+)`),
		value: 2,
		keep:  notPlaceholder,
	},
	{
		// Command-line flags: --password x, --api-key=x, --hf-token x.
		name:  "flag",
		hints: []string{"--"},
		re:    regexp.MustCompile(`(--` + secretName + `(?:=|\s+))("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"'-][^\s"']*)`),
		value: 2,
		keep:  notPlaceholder,
	},
	{
		// NAME=value with a secret-looking NAME, as in env dumps, .env files
		// and INI. The name must start a word so "monkey=1" and
		// "token_count=123" are not caught.
		name:  "assignment",
		hints: []string{"pass", "pwd", "secret", "token", "credential", "key", "auth", "private", "session", "cookie"},
		re:    regexp.MustCompile(`((?:^|[^A-Za-z0-9_.-])["']?` + secretName + `["']?\s*=\s*)(` + value + `)`),
		value: 2,
		keep:  notPlaceholder,
	},
	{
		// NAME: value in YAML, JSON and "key: value" logs. A colon is common
		// in prose ("auth: failed"), so the names are narrower than for '='.
		name:  "colon",
		hints: []string{"pass", "secret", "token", "key", "private", "session", "cookie"},
		re:    regexp.MustCompile(`((?:^|[^A-Za-z0-9_.-])["']?` + colonName + `["']?\s*:\s*)(` + value + `)`),
		value: 2,
		keep:  notPlaceholder,
	},
}

// String returns s with every secret value replaced by Mask. It is safe on
// any text (logs, YAML, JSON, prose) and idempotent: String(String(s)) ==
// String(s).
func String(s string) string {
	if s == "" {
		return s
	}
	var lower string
	for i := range rules {
		r := &rules[i]
		if lower == "" {
			lower = strings.ToLower(s)
		}
		if !anyHint(lower, r.hints) {
			continue
		}
		out := apply(r, s)
		if out != s {
			s = out
			lower = ""
		}
	}
	return keyBodyLines(s)
}

// Lines redacts a slice of lines, one log line each, and returns a new
// slice. Unlike calling String on each line, it masks a PEM private key that
// spans several lines from its BEGIN line through its END line (or to the
// last line when the block is cut off).
func Lines(lines []string) []string {
	out := make([]string, len(lines))
	inKey := false
	for i, l := range lines {
		out[i] = redactLine(l, &inKey)
	}
	return out
}

var (
	pemBegin = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`)
	pemEnd   = regexp.MustCompile(`-----END [A-Z0-9 ]*PRIVATE KEY-----`)
)

func anyHint(lower string, hints []string) bool {
	if len(hints) == 0 {
		return true
	}
	for _, h := range hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// apply replaces the secret part of every match of r in s.
func apply(r *rule, s string) string {
	idx := r.re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range idx {
		start, end := m[0], m[1]
		if r.name == "private-key" {
			// Keep both armour lines so the reader sees what was removed.
			b.WriteString(s[last:start])
			b.WriteString(s[m[2]:m[3]])
			b.WriteString(Mask)
			b.WriteString(s[m[4]:m[5]])
			last = end
			continue
		}
		vs, ve := start, end
		if r.value > 0 {
			vs, ve = m[2*r.value], m[2*r.value+1]
		}
		if vs < 0 || vs == ve {
			continue
		}
		v := s[vs:ve]
		// A quoted value keeps its quotes so JSON and YAML stay valid.
		if n := len(v); n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n-1] == v[0] {
			vs, ve = vs+1, ve-1
			v = v[1 : n-1]
		}
		if v == "" || strings.HasPrefix(v, Mask) || (r.keep != nil && !r.keep(v)) {
			continue
		}
		b.WriteString(s[last:vs])
		b.WriteString(Mask)
		last = ve
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyBodyLines masks lines that are nothing but a long run of base64 with
// upper- and lowercase letters and digits: the body of a PEM private key
// whose BEGIN line is not in the text (a log excerpt that starts inside
// the block). Hex digests and words have fewer character classes.
func keyBodyLines(s string) string {
	var b strings.Builder
	last := 0
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line := s[start:end]
		body := strings.TrimRight(strings.TrimLeft(line, " \t"), " \t\r")
		if keyBody(body) {
			at := start + strings.Index(line, body)
			b.WriteString(s[last:at])
			b.WriteString(Mask)
			last = at + len(body)
		}
		start = end + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyBody reports whether a line looks like a line of a base64 key body.
func keyBody(v string) bool {
	v = strings.TrimRight(v, "=")
	if len(v) < 40 {
		return false
	}
	var upper, lower, digit bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		case c == '+' || c == '/':
		default:
			return false
		}
	}
	return upper && lower && digit
}

// base64PrivateKey reports whether base64 text decodes to the start of a
// PEM private key.
func base64PrivateKey(v string) bool {
	v = strings.TrimRight(v, "=")
	n := min(len(v), 120) / 4 * 4
	head, err := base64.StdEncoding.DecodeString(v[:n])
	return err == nil && strings.Contains(string(head), "PRIVATE KEY")
}

// charClasses reports which of uppercase letters, lowercase letters and
// digits occur in v.
func charClasses(v string) (upper, lower, digit bool) {
	for _, c := range v {
		switch {
		case unicode.IsUpper(c):
			upper = true
		case unicode.IsLower(c):
			lower = true
		case unicode.IsDigit(c):
			digit = true
		}
	}
	return
}

// generated reports whether v looks machine-generated: uppercase letters
// next to lowercase letters or digits. Kubernetes object names are
// lowercase, so "sk-train-worker-12" is never taken for a key.
func generated(v string) bool {
	upper, lower, digit := charClasses(v)
	return upper && (lower || digit)
}

// classes2 reports whether v mixes at least two of uppercase, lowercase and
// digits, which tokens do and words ("authentication") do not.
func classes2(v string) bool {
	upper, lower, digit := charClasses(v)
	n := 0
	for _, b := range []bool{upper, lower, digit} {
		if b {
			n++
		}
	}
	return n >= 2
}

// notPlaceholder vetoes values that are not secrets: numbers (MAX_TOKEN=4096,
// key=0), booleans, empty markers and references to other variables.
func notPlaceholder(v string) bool {
	v = strings.Trim(v, `"'`)
	if v == "" {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "none", "null", "nil", "<none>", "<nil>", "***", "******", "redacted", "<redacted>", "xxx", "changeme", "{}", "[]":
		return false
	}
	if strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{") {
		return false
	}
	digits := true
	for _, c := range v {
		if c < '0' || c > '9' {
			digits = false
			break
		}
	}
	return !digits
}
