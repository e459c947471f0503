package openai

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

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
	svc     sdk.ChatCompletionService
}

var _ model.Model = (*Model)(nil)

// New returns an OpenAI model, as New("gpt-5.4-mini"). The key comes from
// [WithAPIKey] or OPENAI_API_KEY, the base URL from [WithBaseURL],
// OPENAI_BASE_URL or https://api.openai.com/v1. A missing key is a
// *model.MissingKeyError naming OPENAI_API_KEY.
func New(name string, opts ...Option) (*Model, error) {
	return NewFor(OpenAIPreset(), name, opts...)
}

// NewFor returns a model of the provider p describes, as
// NewFor(DeepSeekPreset(), "deepseek-chat"). An empty name means
// p.DefaultModel. It reads the environment once, here; it makes no network
// call.
func NewFor(p Preset, name string, opts ...Option) (*Model, error) {
	var s settings
	for _, o := range opts {
		o(&s)
	}
	if name == "" {
		name = p.DefaultModel
	}
	if name == "" {
		return nil, fmt.Errorf("%s: %w: no model named and the provider has no default: write %q", p.ID, model.ErrInvalidRequest, p.ID+":MODEL")
	}
	key := s.apiKey
	if key == "" {
		key, _ = provider.FirstEnv(p.KeyVars...)
	}
	if key == "" && p.KeyRequired {
		return nil, &model.MissingKeyError{Provider: p.ID, Vars: p.KeyVars}
	}
	base, err := resolveBaseURL(p, s.baseURL)
	if err != nil {
		return nil, err
	}
	if err := s.retry.Validate(p.ID); err != nil {
		return nil, err
	}

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
	ro = append(ro, option.WithMaxRetries(0), option.WithHTTPClient(provider.Client(s.httpClient, p.ID, key, s.retry)))
	for _, h := range s.headers {
		ro = append(ro, option.WithHeader(h[0], h[1]))
	}
	return &Model{preset: p, name: name, baseURL: base, apiKey: key, svc: sdk.NewChatCompletionService(ro...)}, nil
}

func resolveBaseURL(p Preset, given string) (string, error) {
	base := strings.TrimSpace(given)
	if base == "" {
		base, _ = provider.FirstEnv(p.BaseURLVar)
	}
	if base == "" {
		base = p.DefaultBaseURL
	}
	if base == "" {
		return "", fmt.Errorf("%s: %w: set %s or pass openai.WithBaseURL, as \"http://localhost:8000/v1\"", p.ID, ErrMissingBaseURL, p.BaseURLVar)
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("%s: base URL %q is not an absolute URL: write it as \"https://host/v1\"", p.ID, base)
	}
	if p.AddV1 && (u.Path == "" || u.Path == "/") {
		u.Path = "/v1"
		base = u.String()
	}
	return base, nil
}

// Provider returns the provider id, as "openai" or "ollama".
func (m *Model) Provider() string { return m.preset.ID }

// Name returns the model name.
func (m *Model) Name() string { return m.name }

// BaseURL returns the API root the model talks to.
func (m *Model) BaseURL() string { return m.baseURL }
