package provider

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loomwork/loom/model"
)

// Settings are the client settings every provider's options set: the key,
// the base URL, the retry policy, the HTTP client and extra headers. Each
// provider keeps them in its own settings type, embedding Settings, and
// resolves them with [Settings.Resolve].
type Settings struct {
	APIKey     string
	BaseURL    string
	Retry      Policy
	HTTPClient *http.Client
	// Headers are sent with every request, in the order added.
	Headers http.Header
}

// Configurable is a provider's settings type: a pointer to Settings or to
// a struct embedding it.
type Configurable interface{ common() *Settings }

func (s *Settings) common() *Settings { return s }

// The option constructors every provider exports under its own names
// (WithAPIKey, WithBaseURL, WithMaxRetries, ...), for its settings type S.

// APIKey sets the key.
func APIKey[S Configurable](key string) func(S) { return func(s S) { s.common().APIKey = key } }

// BaseURL sets the API root.
func BaseURL[S Configurable](u string) func(S) { return func(s S) { s.common().BaseURL = u } }

// MaxRetries sets how many times a failed request is retried.
func MaxRetries[S Configurable](n int) func(S) {
	return func(s S) { s.common().Retry.MaxRetries = &n }
}

// MaxRetryWait caps the Retry-After wait honoured.
func MaxRetryWait[S Configurable](d time.Duration) func(S) {
	return func(s S) { s.common().Retry.MaxRetryWait = d }
}

// RetryBackoff sets the first and the longest backoff between retries.
func RetryBackoff[S Configurable](initial, max time.Duration) func(S) {
	return func(s S) { s.common().Retry.Backoff, s.common().Retry.MaxBackoff = initial, max }
}

// IdleTimeout sets how long a call may go without a byte.
func IdleTimeout[S Configurable](d time.Duration) func(S) {
	return func(s S) { s.common().Retry.IdleTimeout = d }
}

// HTTPClient sets the HTTP client under loom's transport.
func HTTPClient[S Configurable](c *http.Client) func(S) {
	return func(s S) { s.common().HTTPClient = c }
}

// Header adds a header to every request.
func Header[S Configurable](key, value string) func(S) {
	return func(s S) {
		c := s.common()
		if c.Headers == nil {
			c.Headers = http.Header{}
		}
		c.Headers.Add(key, value)
	}
}

// Apply returns a provider's settings S with opts applied in order.
func Apply[S any, O ~func(*S)](opts []O) S {
	var s S
	for _, o := range opts {
		o(&s)
	}
	return s
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
	// "set VLLM_BASE_URL or pass openai.WithBaseURL, as \"http://localhost:8000/v1\"".
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
}

// Resolve fills what the settings leave unset from the environment and
// the endpoint's defaults, checks it, and builds the HTTP client. A
// missing required key is a *model.MissingKeyError naming the variables;
// a base URL that is not absolute or a negative retry setting fails with
// an error naming it.
func (s *Settings) Resolve(e Endpoint) (Resolved, error) {
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
	if err := s.Retry.Validate(e.ID); err != nil {
		return Resolved{}, err
	}
	return Resolved{Key: key, BaseURL: base, URL: u, HTTP: Client(s.HTTPClient, e.ID, key, s.Retry), Headers: s.Headers}, nil
}
