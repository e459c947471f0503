package anthropic

import (
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// The provider's identity and defaults.
const (
	// ProviderID is the id the provider registers under.
	ProviderID = "anthropic"
	// DefaultModel is used when no model is named.
	DefaultModel = "claude-sonnet-5-5"
	// DefaultBaseURL is Anthropic's API root.
	DefaultBaseURL = "https://api.anthropic.com"
	// BaseURLVar overrides the base URL.
	BaseURLVar = "ANTHROPIC_BASE_URL"
	// DefaultMaxTokens is the max_tokens sent when the request sets no
	// Options.MaxOutputTokens; the API requires one.
	DefaultMaxTokens = 16384
)

// KeyVars are the environment variables read for the key, in order:
// ANTHROPIC_API_KEY, then the SDK's ANTHROPIC_AUTH_TOKEN (both are sent as
// a bearer token by API version 2026-10-21).
func KeyVars() []string { return []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"} }

// Model is a Claude model served over the Anthropic Messages API. It is safe
// for concurrent use.
type Model struct {
	name      string
	baseURL   string
	apiKey    string // kept only to redact it from provider messages
	maxTokens int64
	svc       sdk.MessageService
}

var _ model.Model = (*Model)(nil)

// New returns a Claude model, as New("claude-sonnet-5-5"); an empty name
// means [DefaultModel]. The key comes from [model.WithAPIKey] or
// [KeyVars], the base URL from [model.WithBaseURL], ANTHROPIC_BASE_URL or
// [DefaultBaseURL]. opts are the client options every provider takes
// ([model.ClientOption]); [model.WithMaxTokens] sets the max_tokens sent
// when a request sets none (default [DefaultMaxTokens]). A missing key is
// a *model.MissingKeyError naming the variables. New reads the environment
// once and makes no network call.
func New(name string, opts ...model.ClientOption) (*Model, error) {
	s := model.NewClientSettings(opts...)
	if name == "" {
		name = DefaultModel
	}
	c, err := provider.Resolve(s, provider.Endpoint{ID: ProviderID, KeyVars: KeyVars(), BaseURLVar: BaseURLVar, DefaultBaseURL: DefaultBaseURL, BaseURLForm: "https://host"})
	if err != nil {
		return nil, err
	}
	key, base := c.Key, c.BaseURL
	maxTokens := c.MaxTokens
	if maxTokens == 0 {
		maxTokens = DefaultMaxTokens
	}

	// The SDK's own environment defaults (credential chain, profiles) are
	// skipped: loom has read the key and base URL above, and nothing else
	// should reach the request unannounced.
	ro := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithBaseURL(base), option.WithAPIKey(key)}
	// Retries, Retry-After and stalls are handled by loom's transport, the
	// same for every provider, so the SDK's own retries are off.
	ro = append(ro, option.WithMaxRetries(0), option.WithHTTPClient(c.HTTP))
	for k, vs := range c.Headers {
		for _, v := range vs {
			ro = append(ro, option.WithHeader(k, v)) // the last value of a key wins
		}
	}
	client := sdk.NewClient(ro...)
	return &Model{name: name, baseURL: base, apiKey: key, maxTokens: maxTokens, svc: client.Messages}, nil
}

// Provider returns "anthropic".
func (m *Model) Provider() string { return ProviderID }

// Name returns the model name.
func (m *Model) Name() string { return m.name }

// BaseURL returns the API root the model talks to.
func (m *Model) BaseURL() string { return m.baseURL }
