package redact

import (
	"strings"
	"unicode"
)

// secretWords are the words of a variable, flag, annotation or field name
// that say its value is a secret.
var secretWords = map[string]bool{
	"pass": true, "passwd": true, "password": true, "passphrase": true, "pwd": true,
	"secret": true, "secrets": true, "token": true, "key": true, "apikey": true,
	"auth": true, "credential": true, "credentials": true, "creds": true,
	"private": true, "privatekey": true, "session": true, "sessionid": true,
	"cookie": true, "cookies": true,
}

// secretSuffixes catch words glued together without a separator
// (AUTHTOKEN, dbpassword, AWSSECRETKEY).
var secretSuffixes = []string{"password", "passwd", "secret", "token", "apikey", "secretkey", "accesskey", "privatekey", "sessionid", "cookie"}

// SecretName reports whether a name (an environment variable, a command
// line flag, an annotation key) says that its value is a secret: one of its
// words, split at punctuation and camelCase, is PASS, PASSWD, PASSWORD,
// SECRET, TOKEN, KEY, AUTH, CREDENTIAL, PRIVATE, SESSION or COOKIE (or a
// word ending in one of the longer ones). DB_PASS, WANDB_KEY, HF_AUTH,
// --api-key and sessionCookie are secret names; TOKENIZERS_PARALLELISM,
// MAX_TOKENS, MONKEY_PATCH and KEYBOARD are not.
func SecretName(name string) bool {
	for _, w := range words(name) {
		if secretWords[w] {
			return true
		}
		for _, s := range secretSuffixes {
			if len(w) > len(s) && strings.HasSuffix(w, s) {
				return true
			}
		}
	}
	return false
}

// words splits a name into lowercase words at every character that is not
// a letter or digit, and where a lowercase letter or digit meets an
// uppercase one (apiKey, DBPassword stays dbpassword).
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}
