package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Provider describes a registered provider: how to open one of its models.
type Provider struct {
	// ID is the exact id users write, as "openai" or "ollama".
	ID string
	// DefaultModel is used when an id names no model.
	DefaultModel string
	// KeyVars are the environment variables read for the API key, in order;
	// empty for providers that need none. Used in help and error messages.
	KeyVars []string
	// BaseURLVar is the environment variable that overrides the base URL.
	BaseURLVar string
	// Open returns a model by name. It fails at once, without a network call,
	// when configuration such as the key is missing.
	Open func(name string) (Model, error)
}

// Registry maps provider ids to providers. It is safe for concurrent use.
// Most programs use the package-level [Register] and [Open]; a Registry is for
// programs that want their own set.
type Registry struct {
	mu        sync.RWMutex
	providers map[string]Provider
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{providers: map[string]Provider{}} }

// Register adds p, replacing any provider with the same id. It returns an
// error for an empty id or a nil Open.
func (r *Registry) Register(p Provider) error {
	if p.ID == "" || strings.ContainsAny(p.ID, ":/") {
		return fmt.Errorf("model: provider id %q is not valid: it must be non-empty and contain no ':' or '/'", p.ID)
	}
	if p.Open == nil {
		return fmt.Errorf("model: provider %q has no Open function", p.ID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.providers[p.ID] = p
	return nil
}

// Lookup returns the provider with exactly this id.
func (r *Registry) Lookup(id string) (Provider, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.providers[id]
	return p, ok
}

// Providers returns the registered providers, sorted by id.
func (r *Registry) Providers() []Provider {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ps := make([]Provider, 0, len(r.providers))
	for _, p := range r.providers {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b Provider) int { return strings.Compare(a.ID, b.ID) })
	return ps
}

// Open resolves id and opens the model. See [ParseID] for the id syntax.
func (r *Registry) Open(id string) (Model, error) {
	provider, name, err := ParseID(id)
	if err != nil {
		return nil, err
	}
	p, ok := r.Lookup(provider)
	if !ok {
		known := make([]string, 0)
		for _, p := range r.Providers() {
			known = append(known, p.ID)
		}
		return nil, &UnknownProviderError{ID: provider, Known: known}
	}
	if name == "" {
		name = p.DefaultModel
	}
	if name == "" {
		return nil, fmt.Errorf("model: provider %q has no default model: write %q", provider, provider+":MODEL")
	}
	return p.Open(name)
}

// ParseID splits "provider:model" or "provider/model" at the first separator
// only, so "bedrock:us.amazon.nova-lite-v1:0" names model
// "us.amazon.nova-lite-v1:0". A bare "provider" gives an empty model name.
func ParseID(id string) (provider, name string, err error) {
	id = strings.TrimSpace(id)
	i := strings.IndexAny(id, ":/")
	if i < 0 {
		provider = id
	} else {
		provider, name = id[:i], id[i+1:]
	}
	if provider == "" {
		return "", "", fmt.Errorf("model: id %q names no provider: write PROVIDER or PROVIDER:MODEL, as \"openai:gpt-4o-mini\"", id)
	}
	if i >= 0 && name == "" {
		return "", "", fmt.Errorf("model: id %q has a separator but no model name: drop it for the default model, or write %q", id, provider+":MODEL")
	}
	return strings.ToLower(provider), name, nil
}

// UnknownProviderError is returned by Open for an id that is not registered.
// It wraps [ErrUnknownProvider].
type UnknownProviderError struct {
	ID    string
	Known []string
}

// Error returns the error's message.
func (e *UnknownProviderError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("model: unknown provider %q: no providers are registered (import github.com/loomwork/loom/model/providers)", e.ID)
	}
	return fmt.Sprintf("model: unknown provider %q: known providers are %s", e.ID, strings.Join(e.Known, ", "))
}

// Unwrap returns [ErrUnknownProvider].
func (e *UnknownProviderError) Unwrap() error { return ErrUnknownProvider }

// defaultRegistry holds the providers registered by imported provider
// packages; registration at init is its only writer in loom itself.
var defaultRegistry = NewRegistry()

// Register adds p to the default registry. Provider packages call it from
// init; it panics only on an invalid Provider, which is a programming error
// in the provider package.
func Register(p Provider) {
	if err := defaultRegistry.Register(p); err != nil {
		panic(err)
	}
}

// Open resolves id against the default registry: "openai:gpt-4o-mini",
// "anthropic/claude-sonnet-4-5", or "ollama" for the provider's default model.
// Import github.com/loomwork/loom/model/providers to register every
// built-in provider.
func Open(id string) (Model, error) { return defaultRegistry.Open(id) }

// Providers lists the providers in the default registry, sorted by id.
func Providers() []Provider { return defaultRegistry.Providers() }
