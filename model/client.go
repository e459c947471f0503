package model

import (
	"net/http"
	"time"
)

// ClientOption configures a provider's client: the same options for every
// provider's constructor (openai.New and NewFor, anthropic.New,
// gemini.New, and the embedders), as
//
//	openai.New("gpt-5.4-mini", model.WithAPIKey(key), model.WithMaxRetries(5))
type ClientOption func(*ClientSettings)

// ClientSettings are what the [ClientOption]s set; a provider reads them
// once, in its constructor. A zero field means the provider's default:
// the key and base URL from its environment variables, loom's retry
// policy. A negative duration or retry count is refused by the
// constructor with an error wrapping [ErrInvalidOption].
type ClientSettings struct {
	// APIKey is the key ([WithAPIKey]).
	APIKey string
	// BaseURL is the API root ([WithBaseURL]).
	BaseURL string
	// MaxRetries is the number of retries of a failed request
	// ([WithMaxRetries]); nil means 2.
	MaxRetries *int
	// MaxRetryWait caps the Retry-After wait honoured ([WithMaxRetryWait]).
	MaxRetryWait time.Duration
	// RetryBackoff and MaxRetryBackoff are the first and the longest wait
	// between retries when the provider asks for none ([WithRetryBackoff]).
	RetryBackoff, MaxRetryBackoff time.Duration
	// IdleTimeout is the longest time a call may go without a byte
	// ([WithIdleTimeout]).
	IdleTimeout time.Duration
	// HTTPClient is the HTTP client under loom's transport
	// ([WithHTTPClient]).
	HTTPClient *http.Client
	// Headers are sent with every request, in the order added
	// ([WithHeader]).
	Headers http.Header
	// MaxTokens is the output token limit sent when a request's
	// Options.MaxOutputTokens is unset ([WithMaxTokens]).
	MaxTokens int64
}

// NewClientSettings returns the settings opts set, applied in order; a nil
// option is skipped.
func NewClientSettings(opts ...ClientOption) ClientSettings {
	var s ClientSettings
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	return s
}

// WithAPIKey sets the API key, instead of the provider's key variables
// (OPENAI_API_KEY and the presets' own, ANTHROPIC_API_KEY,
// GOOGLE_API_KEY or GEMINI_API_KEY).
func WithAPIKey(key string) ClientOption { return func(s *ClientSettings) { s.APIKey = key } }

// WithBaseURL sets the API root, as "https://api.openai.com/v1",
// "https://api.anthropic.com" or "https://generativelanguage.googleapis.com/",
// instead of the provider's base URL variable and default.
func WithBaseURL(url string) ClientOption { return func(s *ClientSettings) { s.BaseURL = url } }

// WithMaxRetries sets how many times a failed request (a connection error
// before any response, HTTP 408, 409, 429 or 5xx) is retried; the default
// is 2 and 0 disables retries. Every provider shares this policy: the wait
// is what Retry-After (seconds or an HTTP date) or retry-after-ms asks,
// up to [WithMaxRetryWait], and a jittered backoff ([WithRetryBackoff])
// when the provider asks for none.
func WithMaxRetries(n int) ClientOption { return func(s *ClientSettings) { s.MaxRetries = &n } }

// WithMaxRetryWait caps the Retry-After wait honoured (default 30s). A
// provider asking for longer fails the call at once with an [APIError]
// whose RetryAfter and MaxRetryWait say so.
func WithMaxRetryWait(d time.Duration) ClientOption {
	return func(s *ClientSettings) { s.MaxRetryWait = d }
}

// WithRetryBackoff sets the first wait between retries when the provider
// asks for none (default 500ms), doubling per retry up to max (default
// 8s); each wait is jittered down by up to half.
func WithRetryBackoff(initial, max time.Duration) ClientOption {
	return func(s *ClientSettings) { s.RetryBackoff, s.MaxRetryBackoff = initial, max }
}

// WithIdleTimeout sets how long a call may go without a byte from the
// provider, before the response or between chunks (default 60s); past it
// the call fails with a [StallError].
func WithIdleTimeout(d time.Duration) ClientOption {
	return func(s *ClientSettings) { s.IdleTimeout = d }
}

// WithHTTPClient sets the HTTP client, for proxies, tracing or tests.
func WithHTTPClient(c *http.Client) ClientOption { return func(s *ClientSettings) { s.HTTPClient = c } }

// WithHeader adds a header to every request, as OpenRouter's
// "HTTP-Referer" and "X-Title", or Anthropic's "anthropic-beta".
func WithHeader(key, value string) ClientOption {
	return func(s *ClientSettings) {
		if s.Headers == nil {
			s.Headers = http.Header{}
		}
		s.Headers.Add(key, value)
	}
}

// WithMaxTokens sets the output token limit sent when a request's
// Options.MaxOutputTokens is unset; 0 leaves it to the provider (Anthropic,
// which requires the field, then sends anthropic.DefaultMaxTokens; the
// others send none). A negative n is refused by the constructor.
func WithMaxTokens(n int64) ClientOption { return func(s *ClientSettings) { s.MaxTokens = n } }
