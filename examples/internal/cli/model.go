package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/loomwork/loom/model"
)

// ModelID returns the model to use: the flag, else $MODEL, else "openai".
func ModelID(flagValue string, getenv func(string) string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := strings.TrimSpace(getenv("MODEL")); v != "" {
		return v
	}
	return "openai"
}

// ConfigError is a configuration problem that stops the program before any
// run: a missing key, an unknown provider.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// OpenModel opens id through the model registry. A missing key or an
// unknown provider is a [*ConfigError] that says what to set, naming the
// .env.local files looked in (envFiles), and the local option that needs no
// key.
func OpenModel(id string, envFiles []string) (model.Model, error) {
	m, err := model.Open(id)
	if err == nil {
		return m, nil
	}
	var mk *model.MissingKeyError
	switch {
	case errors.As(err, &mk):
		return nil, &ConfigError{Err: fmt.Errorf("%s: %w: set %s in the environment, or in a .env.local file (copy the example's .env.local.example); looked in, in order:\n  %s\nor run a local model that needs no key: --model ollama:llama3.2", mk.Provider, model.ErrMissingKey, strings.Join(mk.Vars, " or "), strings.Join(envFiles, "\n  "))}
	case errors.Is(err, model.ErrUnknownProvider):
		return nil, &ConfigError{Err: fmt.Errorf("--model %s: %w", id, err)}
	}
	return nil, &ConfigError{Err: fmt.Errorf("--model %s: %w", id, err)}
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
