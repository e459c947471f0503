package vector

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/loomwork/loom/agent"
)

// SearchToolConfig configures [NewSearchTool]. Zero values mean defaults;
// negative numbers are errors.
type SearchToolConfig struct {
	// Name is the tool's name, as the model calls it: "" means
	// "search_knowledge".
	Name string
	// Description tells the model what the store holds and when to search
	// it; "" means a generic description. Say what is in the store.
	Description string
	// K is the number of matches when the model does not ask for a number:
	// 0 means [DefaultK].
	K int
	// MaxK caps the number of matches the model may ask for: 0 means 20.
	MaxK int
	// MinScore leaves out weak matches, as [Query.MinScore] (cosine scores
	// can be negative, and so can this bound).
	MinScore float32 `config:"negative"`
	// Filter restricts every search, as a tenant or a source; nil: none.
	Filter *Filter
	// MaxTextBytes cuts each match's text to this many bytes, so a few
	// long documents cannot flood the model's context: 0 means 4000.
	MaxTextBytes int
}

// SearchInput is the search tool's input.
type SearchInput struct {
	Query string `json:"query" jsonschema:"description=What to look for: a question or keywords in natural language,minLength=1"`
	K     int    `json:"k,omitempty" jsonschema:"description=How many matches to return (optional),minimum=1"`
}

// SearchOutput is the search tool's output: matches, best first.
type SearchOutput struct {
	Matches []SearchMatch `json:"matches"`
}

// SearchMatch is one match of the search tool.
type SearchMatch struct {
	ID       string         `json:"id"`
	Text     string         `json:"text"`
	Score    float32        `json:"score" jsonschema:"description=Cosine similarity to the query; 1 is identical"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// NewSearchTool makes store an agent: a tool a model calls with a query
// (and optionally a number of matches), which answers with the matching
// documents' ids, texts, scores and metadata, best first. The store must
// have an embedder, since the model sends text.
func NewSearchTool(store Store, opts SearchToolConfig) (agent.Agent, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: NewSearchTool was given a nil store", agent.ErrInvalidConfig)
	}
	switch {
	case opts.K < 0, opts.MaxK < 0, opts.MaxTextBytes < 0:
		return nil, fmt.Errorf("%w: search tool: K (%d), MaxK (%d) and MaxTextBytes (%d) must not be negative; 0 means the default",
			agent.ErrInvalidConfig, opts.K, opts.MaxK, opts.MaxTextBytes)
	}
	if opts.Name == "" {
		opts.Name = "search_knowledge"
	}
	if opts.Description == "" {
		opts.Description = "Searches a knowledge base by meaning and returns the most relevant passages, best first, with a similarity score."
	}
	if opts.K == 0 {
		opts.K = DefaultK
	}
	if opts.MaxK == 0 {
		opts.MaxK = 20
	}
	if opts.MaxTextBytes == 0 {
		opts.MaxTextBytes = 4000
	}
	if opts.Filter != nil {
		if err := opts.Filter.Validate(); err != nil {
			return nil, fmt.Errorf("%w: search tool: %w", agent.ErrInvalidConfig, err)
		}
	}
	return agent.NewFunc(opts.Name, opts.Description, func(ctx context.Context, in SearchInput) (SearchOutput, error) {
		k := in.K
		if k == 0 {
			k = opts.K
		}
		ms, err := store.Search(ctx, Query{Text: in.Query, K: min(k, opts.MaxK), MinScore: opts.MinScore, Filter: opts.Filter})
		if err != nil {
			return SearchOutput{}, err
		}
		out := SearchOutput{Matches: make([]SearchMatch, len(ms))}
		for i, m := range ms {
			out.Matches[i] = SearchMatch{ID: m.ID, Text: cut(m.Text, opts.MaxTextBytes), Score: m.Score, Metadata: m.Metadata}
		}
		return out, nil
	})
}

// cut shortens s to at most n bytes at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
