package openai

import (
	"errors"
	"fmt"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// ErrMissingBaseURL marks a provider without a default base URL
// (openai-compatible) constructed without one.
var ErrMissingBaseURL = errors.New("missing base URL")

// Model is a chat model served over the OpenAI Chat Completions API. It is
// safe for concurrent use.
type Model struct {
	preset  Preset
	name    string
	baseURL string
	apiKey  string // kept only to redact it from provider messages
	// maxTokens is the output token limit sent when a request sets none;
	// 0 sends none.
	maxTokens int64
	svc       sdk.ChatCompletionService
}

var _ model.Model = (*Model)(nil)

// New returns an OpenAI model, as New("gpt-5.4-mini"). The key comes from
// [model.WithAPIKey] or OPENAI_API_KEY, the base URL from
// [model.WithBaseURL], OPENAI_BASE_URL or https://api.openai.com/v1. A
// missing key is a *model.MissingKeyError naming OPENAI_API_KEY. opts are
// the client options every provider takes ([model.ClientOption]).
func New(name string, opts ...model.ClientOption) (*Model, error) {
	return NewFor(OpenAIPreset(), name, opts...)
}

// NewFor returns a model of the provider p describes, as
// NewFor(DeepSeekPreset(), "deepseek-chat"). An empty name means
// p.DefaultModel. It reads the environment once, here; it makes no network
// call.
func NewFor(p Preset, name string, opts ...model.ClientOption) (*Model, error) {
	s := model.NewClientSettings(opts...)
	if name == "" {
		name = p.DefaultModel
	}
	if name == "" {
		return nil, fmt.Errorf("%s: %w: no model named and the provider has no default: write %q", p.ID, model.ErrInvalidRequest, p.ID+":MODEL")
	}
	c, err := provider.Resolve(s, provider.Endpoint{
		ID: p.ID, KeyVars: p.KeyVars, KeyOptional: !p.KeyRequired, BaseURLVar: p.BaseURLVar, DefaultBaseURL: p.DefaultBaseURL,
		MissingBaseURL: ErrMissingBaseURL, MissingBaseURLHint: fmt.Sprintf("set %s or pass model.WithBaseURL, as \"http://localhost:8000/v1\"", p.BaseURLVar),
		BaseURLForm: "https://host/v1",
	})
	if err != nil {
		return nil, err
	}
	key, base := c.Key, baseURL(p, c)

	var ro []option.RequestOption
	if p.SDKEnvironment {
		ro = append(ro, sdk.DefaultClientOptions()...)
	}
	ro = append(ro, option.WithBaseURL(base))
	if key != "" {
		ro = append(ro, option.WithAPIKey(key))
	}
	// Retries, Retry-After and stalls are handled by loom's transport, the
	// same for every provider, so the SDK's own retries are off.
	ro = append(ro, option.WithMaxRetries(0), option.WithHTTPClient(c.HTTP))
	for k, vs := range c.Headers {
		for _, v := range vs {
			ro = append(ro, option.WithHeader(k, v)) // the last value of a key wins
		}
	}
	return &Model{preset: p, name: name, baseURL: base, apiKey: key, maxTokens: c.MaxTokens, svc: sdk.NewChatCompletionService(ro...)}, nil
}

// baseURL is the resolved base URL, with /v1 added to a bare host when
// the preset asks for it.
func baseURL(p Preset, c provider.Resolved) string {
	if u := *c.URL; p.AddV1 && (u.Path == "" || u.Path == "/") {
		u.Path = "/v1"
		return u.String()
	}
	return c.BaseURL
}

// Provider returns the provider id, as "openai" or "ollama".
func (m *Model) Provider() string { return m.preset.ID }

// Name returns the model name.
func (m *Model) Name() string { return m.name }

// BaseURL returns the API root the model talks to.
func (m *Model) BaseURL() string { return m.baseURL }
