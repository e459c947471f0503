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
		return nil, &ConfigError{Err: MissingKey(err, envFiles)}
	case errors.Is(err, model.ErrUnknownProvider):
		return nil, &ConfigError{Err: fmt.Errorf("--model %s: %w", id, err)}
	}
	return nil, &ConfigError{Err: fmt.Errorf("--model %s: %w", id, err)}
}
