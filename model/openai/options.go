package openai

import (
	"net/http"
	"time"

	"github.com/loomwork/loom/model/internal/provider"
)

// Option configures a [Model].
type Option func(*settings)

type settings struct{ provider.Settings }

// WithAPIKey sets the API key, instead of the preset's key variable.
func WithAPIKey(key string) Option { return provider.APIKey[*settings](key) }

// WithBaseURL sets the API root, as "https://api.openai.com/v1", instead of
// the preset's base URL variable and default.
func WithBaseURL(url string) Option { return provider.BaseURL[*settings](url) }

// WithMaxRetries sets how many times a failed request (a connection error
// before any response, HTTP 408, 409, 429 or 5xx) is retried; the default
// is 2 and 0 disables retries. Every provider shares this policy: the wait
// is what Retry-After (seconds or an HTTP date) or retry-after-ms asks,
// up to [WithMaxRetryWait], and a jittered backoff ([WithRetryBackoff])
// when the provider asks for none.
func WithMaxRetries(n int) Option { return provider.MaxRetries[*settings](n) }

// WithMaxRetryWait caps the Retry-After wait honoured (default 30s). A
// provider asking for longer fails the call at once with a
// *model.APIError whose RetryAfter and MaxRetryWait say so.
func WithMaxRetryWait(d time.Duration) Option { return provider.MaxRetryWait[*settings](d) }

// WithRetryBackoff sets the first wait between retries when the provider
// asks for none (default 500ms), doubling per retry up to max (default
// 8s); each wait is jittered down by up to half.
func WithRetryBackoff(initial, max time.Duration) Option {
	return provider.RetryBackoff[*settings](initial, max)
}

// WithIdleTimeout sets how long a call may go without a byte from the
// provider, before the response or between chunks (default 60s); past it
// the call fails with a *model.StallError.
func WithIdleTimeout(d time.Duration) Option { return provider.IdleTimeout[*settings](d) }

// WithHTTPClient sets the HTTP client, for proxies, tracing or tests.
func WithHTTPClient(c *http.Client) Option { return provider.HTTPClient[*settings](c) }

// WithHeader adds a header to every request, as OpenRouter's "HTTP-Referer"
// and "X-Title".
func WithHeader(key, value string) Option { return provider.Header[*settings](key, value) }
