package provider

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/loomwork/loom/model"
)

// policyOf is the retry policy of a client's settings.
func policyOf(s model.ClientSettings) Policy {
	return Policy{MaxRetries: s.MaxRetries, MaxRetryWait: s.MaxRetryWait, Backoff: s.RetryBackoff, MaxBackoff: s.MaxRetryBackoff, IdleTimeout: s.IdleTimeout}
}

// Endpoint is where a provider's settings default from.
type Endpoint struct {
	// ID is the provider's id, named in errors.
	ID string
	// KeyVars are the environment variables of the key, the first set
	// winning, when no key was given.
	KeyVars []string
	// KeyOptional lets a provider run without a key (a local server).
	KeyOptional bool
	// BaseURLVar is the environment variable of the base URL, when none
	// was given.
	BaseURLVar string
	// DefaultBaseURL is the base URL when neither was set; "" fails with
	// MissingBaseURL.
	DefaultBaseURL string
	// MissingBaseURL is the error when no base URL is set or known, and
	// MissingBaseURLHint how to set one, as
	// "set VLLM_BASE_URL or pass model.WithBaseURL, as \"http://localhost:8000/v1\"".
	MissingBaseURL     error
	MissingBaseURLHint string
	// BaseURLForm is how an error shows a base URL should look, as
	// "https://host/v1".
	BaseURLForm string
}

// Resolved is what a provider's settings resolve to.
type Resolved struct {
	// Key is the API key: given, or read from the environment.
	Key string
	// BaseURL is the absolute API root, as given or read; URL is it
	// parsed.
	BaseURL string
	URL     *url.URL
	// HTTP is loom's transport over the given HTTP client: retries,
	// Retry-After and stalls, the same for every provider.
	HTTP *http.Client
	// Headers are the extra headers, nil for none.
	Headers http.Header
	// MaxTokens is the output token limit to send when a request sets
	// none; 0 for the provider's default.
	MaxTokens int64
}

// Resolve fills what a client's settings leave unset from the environment
// and the endpoint's defaults, checks them, and builds the HTTP client. A
// missing required key is a *model.MissingKeyError naming the variables;
// a base URL that is not absolute, a negative retry setting or a negative
// MaxTokens fails with an error naming it.
func Resolve(s model.ClientSettings, e Endpoint) (Resolved, error) {
	key := s.APIKey
	if key == "" {
		key, _ = FirstEnv(e.KeyVars...)
	}
	if key == "" && !e.KeyOptional {
		return Resolved{}, &model.MissingKeyError{Provider: e.ID, Vars: e.KeyVars}
	}
	base := strings.TrimSpace(s.BaseURL)
	if base == "" && e.BaseURLVar != "" {
		base, _ = FirstEnv(e.BaseURLVar)
	}
	if base == "" {
		base = e.DefaultBaseURL
	}
	if base == "" {
		return Resolved{}, fmt.Errorf("%s: %w: %s", e.ID, e.MissingBaseURL, e.MissingBaseURLHint)
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return Resolved{}, fmt.Errorf("%s: base URL %q is not an absolute URL: write it as %q", e.ID, base, e.BaseURLForm)
	}
	p := policyOf(s)
	if err := p.Validate(e.ID); err != nil {
		return Resolved{}, err
	}
	if s.MaxTokens < 0 {
		return Resolved{}, fmt.Errorf("%s: %w: WithMaxTokens(%d): must not be negative (0 means the provider's default)", e.ID, model.ErrInvalidOption, s.MaxTokens)
	}
	return Resolved{Key: key, BaseURL: base, URL: u, HTTP: Client(s.HTTPClient, e.ID, key, p), Headers: s.Headers, MaxTokens: s.MaxTokens}, nil
}
