package provider

import (
	"os"
	"strings"
)

// FirstEnv returns the value of the first variable in vars that is set to a
// non-blank value, and that variable's name.
func FirstEnv(vars ...string) (value, name string) {
	for _, v := range vars {
		if s := strings.TrimSpace(os.Getenv(v)); s != "" {
			return s, v
		}
	}
	return "", ""
}

// Redact replaces every occurrence of secret in s with "[redacted]". Secrets
// shorter than 8 characters are left alone: they are test values, and
// replacing them would mangle ordinary words.
func Redact(s, secret string) string {
	if len(secret) < 8 {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}
