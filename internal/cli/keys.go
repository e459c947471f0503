package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/loomwork/loom/model"
)

// MissingKey rewrites a missing-key error from model.Open into the one
// message every command gives: the variable to set, the .env.local files
// looked in, and the local model that needs none. Other errors pass
// through.
func MissingKey(err error, envFiles []string) error {
	var mk *model.MissingKeyError
	if !errors.As(err, &mk) {
		return err
	}
	return fmt.Errorf("%s: %w: set %s in the environment or in a .env.local file; looked in, in order:\n  %s\nor run a local model that needs no key: --model ollama:llama3.2",
		mk.Provider, model.ErrMissingKey, strings.Join(mk.Vars, " or "), strings.Join(envFiles, "\n  "))
}

// KeyLine describes the key a provider will use, masked, for a DEBUG log
// line: "OPENAI_API_KEY=sk-…7890", or "no key" when none is set.
func KeyLine(providerID string, getenv func(string) string) string {
	for _, p := range model.Providers() {
		if p.ID != providerID {
			continue
		}
		for _, v := range p.KeyVars {
			if k := getenv(v); k != "" {
				return v + "=" + Mask(k)
			}
		}
	}
	return "no key"
}

// Mask hides all of a secret but a short prefix and suffix.
func Mask(s string) string {
	if len(s) < 12 {
		return strings.Repeat("*", len(s))
	}
	return s[:3] + "…" + s[len(s)-4:]
}
