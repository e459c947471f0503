package openai

import (
	"net/http"
	"time"
)

// Option configures a [Model].
type Option func(*settings)

type settings struct {
	apiKey        string
	baseURL       string
	maxRetries    *int
	maxRetryDelay time.Duration
	httpClient    *http.Client
	headers       [][2]string
}

// WithAPIKey sets the API key, instead of the preset's key variable.
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = key } }

// WithBaseURL sets the API root, as "https://api.openai.com/v1", instead of
// the preset's base URL variable and default.
func WithBaseURL(url string) Option { return func(s *settings) { s.baseURL = url } }

// WithMaxRetries sets how many times a failed request (connection error, 408,
// 409, 429 or 5xx) is retried, with the SDK's exponential backoff honouring
// Retry-After. The SDK's default is 2; 0 disables retries.
func WithMaxRetries(n int) Option { return func(s *settings) { s.maxRetries = &n } }

// WithMaxRetryDelay caps the wait between retries. A Retry-After longer than
// the cap ends the retries at once rather than waiting.
func WithMaxRetryDelay(d time.Duration) Option { return func(s *settings) { s.maxRetryDelay = d } }

// WithHTTPClient sets the HTTP client, for proxies, tracing or tests.
func WithHTTPClient(c *http.Client) Option { return func(s *settings) { s.httpClient = c } }

// WithHeader adds a header to every request, as OpenRouter's "HTTP-Referer"
// and "X-Title".
func WithHeader(key, value string) Option {
	return func(s *settings) { s.headers = append(s.headers, [2]string{key, value}) }
}
