package gemini

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"
	"google.golang.org/genai"
)

// The provider's identity and defaults.
const (
	// ProviderID is the id the provider registers under.
	ProviderID = "gemini"
	// DefaultModel is used when no model is named: Google's alias for its
	// current Flash model.
	DefaultModel = "gemini-flash-latest"
	// DefaultBaseURL is the Gemini API's root.
	DefaultBaseURL = "https://generativelanguage.googleapis.com/"
	// BaseURLVar overrides the base URL (the genai SDK's own variable).
	BaseURLVar = "GOOGLE_GEMINI_BASE_URL"
)

// KeyVars are the environment variables read for the key, in the SDK's
// order: GOOGLE_API_KEY wins when both are set (and the SDK logs a warning).
func KeyVars() []string { return []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"} }

// Model is a Gemini model served over the Gemini API (generateContent with
// SSE streaming). It is safe for concurrent use.
type Model struct {
	name    string
	baseURL string
	apiKey  string // kept only to redact it from provider messages
	// maxTokens is the output token limit sent when a request sets none;
	// 0 sends none.
	maxTokens int64
	models    *genai.Models
	sigs      signatures
}

var _ model.Model = (*Model)(nil)

// New returns a Gemini model, as New("gemini-flash-latest"); an empty name
// means [DefaultModel]. The key comes from [model.WithAPIKey] or
// [KeyVars], the base URL from [model.WithBaseURL],
// GOOGLE_GEMINI_BASE_URL or [DefaultBaseURL]. A missing key is a
// *model.MissingKeyError naming the variables. opts are the client
// options every provider takes ([model.ClientOption]). New makes no
// network call.
func New(name string, opts ...model.ClientOption) (*Model, error) {
	s := model.NewClientSettings(opts...)
	if name == "" {
		name = DefaultModel
	}
	name = strings.TrimPrefix(name, "models/")
	c, err := provider.Resolve(s, provider.Endpoint{ID: ProviderID, KeyVars: KeyVars(), BaseURLVar: BaseURLVar, DefaultBaseURL: DefaultBaseURL, BaseURLForm: "https://host/"})
	if err != nil {
		return nil, err
	}
	key, base := c.Key, c.BaseURL
	// Retries, Retry-After and stalls are handled by loom's transport, the
	// same for every provider; with no RetryOptions genai sends each request
	// once.
	cc := &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  quietClient(c.HTTP),
		HTTPOptions: genai.HTTPOptions{BaseURL: base, Headers: c.Headers},
	}
	// NewClient takes a context only for credential lookups, which an API
	// key makes unnecessary.
	client, err := genai.NewClient(context.Background(), cc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ProviderID, err)
	}
	return &Model{name: name, baseURL: base, apiKey: key, maxTokens: c.MaxTokens, models: client.Models}, nil
}

// Provider returns "gemini".
func (m *Model) Provider() string { return ProviderID }

// Name returns the model name.
func (m *Model) Name() string { return m.name }

// BaseURL returns the API root the model talks to.
func (m *Model) BaseURL() string { return m.baseURL }

// signatures remembers the thought signatures Gemini attaches to function
// calls, by call id, so a replayed conversation sends them back as Gemini 3
// models require. It is bounded: the oldest entries go first.
type signatures struct {
	mu    sync.Mutex
	byID  map[string][]byte
	order []string
}

const maxSignatures = 4096

func (s *signatures) put(id string, sig []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string][]byte{}
	}
	if _, ok := s.byID[id]; !ok {
		s.order = append(s.order, id)
	}
	s.byID[id] = sig
	if len(s.order) > maxSignatures {
		delete(s.byID, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *signatures) get(id string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}
