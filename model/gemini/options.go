package gemini

import (
	"net/http"
	"time"
)

// Option configures a [Model].
type Option func(*settings)

type settings struct {
	apiKey       string
	baseURL      string
	maxRetries   *int
	initialDelay time.Duration
	maxDelay     time.Duration
	httpClient   *http.Client
	headers      http.Header
}

// WithAPIKey sets the API key, instead of GOOGLE_API_KEY or GEMINI_API_KEY.
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = key } }

// WithBaseURL sets the API root, as
// "https://generativelanguage.googleapis.com/", instead of
// GOOGLE_GEMINI_BASE_URL.
func WithBaseURL(url string) Option { return func(s *settings) { s.baseURL = url } }

// WithMaxRetries sets how many times a failed request (connection error,
// 408, 429 or 5xx) is retried with the SDK's exponential backoff. The
// default is [DefaultMaxRetries]; 0 disables retries. The genai SDK does not
// read Retry-After; its backoff is set by [WithRetryDelay].
func WithMaxRetries(n int) Option { return func(s *settings) { s.maxRetries = &n } }

// WithRetryDelay sets the first wait between retries (doubling after each)
// and the longest. The SDK's defaults are 1s and 60s, with up to 1s of
// jitter; here the jitter is at most the first wait.
func WithRetryDelay(initial, max time.Duration) Option {
	return func(s *settings) { s.initialDelay, s.maxDelay = initial, max }
}

// WithHTTPClient sets the HTTP client, for proxies, tracing or tests.
func WithHTTPClient(c *http.Client) Option { return func(s *settings) { s.httpClient = c } }

// WithHeader adds a header to every request.
func WithHeader(key, value string) Option {
	return func(s *settings) {
		if s.headers == nil {
			s.headers = http.Header{}
		}
		s.headers.Add(key, value)
	}
}
