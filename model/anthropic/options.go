package anthropic

import "net/http"

// Option configures a [Model].
type Option func(*settings)

type settings struct {
	apiKey     string
	baseURL    string
	maxRetries *int
	maxTokens  int64
	httpClient *http.Client
	headers    [][2]string
}

// WithAPIKey sets the API key, instead of ANTHROPIC_API_KEY.
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = key } }

// WithBaseURL sets the API root, as "https://api.anthropic.com", instead of
// ANTHROPIC_BASE_URL.
func WithBaseURL(url string) Option { return func(s *settings) { s.baseURL = url } }

// WithMaxRetries sets how many times a failed request (connection error,
// 408, 409, 429 or 5xx, including 529 overloaded) is retried, with the SDK's
// exponential backoff honouring Retry-After. The SDK's default is 2; 0
// disables retries.
func WithMaxRetries(n int) Option { return func(s *settings) { s.maxRetries = &n } }

// WithMaxTokens sets the max_tokens sent when the request's
// Options.MaxOutputTokens is unset. Anthropic requires the field; the
// default is [DefaultMaxTokens].
func WithMaxTokens(n int64) Option { return func(s *settings) { s.maxTokens = n } }

// WithHTTPClient sets the HTTP client, for proxies, tracing or tests.
func WithHTTPClient(c *http.Client) Option { return func(s *settings) { s.httpClient = c } }

// WithHeader adds a header to every request, as "anthropic-beta".
func WithHeader(key, value string) Option {
	return func(s *settings) { s.headers = append(s.headers, [2]string{key, value}) }
}
