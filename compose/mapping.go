package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/flow"
)

// DefaultMapConcurrency is how many items a [Map] processes at once when
// MapConfig.MaxConcurrency is 0.
const DefaultMapConcurrency = 4

// MapConfig configures a [Map].
type MapConfig struct {
	// Name identifies the map; it must be a valid tool name.
	Name string
	// Description tells a model what it does.
	Description string
	// Field is the input field holding the array to iterate over.
	Field string
	// Agent processes each item.
	Agent agent.Agent
	// ItemKey is the field an item that is not an object is put under
	// (default "item").
	ItemKey string
	// MaxConcurrency caps the items processed at once (0 means
	// DefaultMapConcurrency; 1 processes them one after the other).
	MaxConcurrency int
	// CollectErrors processes every item even when some fail, and reports
	// them together in a [*BranchesError]. By default the first failure
	// cancels the rest.
	CollectErrors bool
}

// Map runs an agent once per element of an array field of its input.
// Each run receives the input's other fields merged with the item (an
// object item's fields win; any other item goes under ItemKey). The output
// is {Field: [each run's output, in item order]}. Events of every run
// appear in the stream as they happen.
type Map struct {
	*agent.Custom
	cfg MapConfig
}

// NewMap checks cfg and returns the map.
func NewMap(cfg MapConfig) (*Map, error) {
	if cfg.Agent == nil {
		return nil, flow.ConfigError("map", cfg.Name, "it has no Agent to run on each item")
	}
	if cfg.Field == "" {
		return nil, flow.ConfigError("map", cfg.Name, "Field is empty: name the input field holding the array")
	}
	if cfg.ItemKey == "" {
		cfg.ItemKey = "item"
	}
	switch {
	case cfg.MaxConcurrency == 0:
		cfg.MaxConcurrency = DefaultMapConcurrency
	case cfg.MaxConcurrency < 0:
		return nil, flow.ConfigError("map", cfg.Name, "MaxConcurrency is %d; it must be positive (0 means %d)", cfg.MaxConcurrency, DefaultMapConcurrency)
	}
	in, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           map[string]any{cfg.Field: map[string]any{"type": "array", "description": "The items to process, one run each."}},
		"required":             []string{cfg.Field},
		"additionalProperties": true,
	})
	out, _ := json.Marshal(map[string]any{
		"type":       "object",
		"properties": map[string]any{cfg.Field: map[string]any{"type": "array", "items": json.RawMessage(cfg.Agent.Info().OutputSchema)}},
	})
	w := &Map{cfg: cfg}
	c, err := agent.New(agent.Info{Name: cfg.Name, Description: cfg.Description, Kind: flow.Kind, InputSchema: in, OutputSchema: out}, w.body)
	if err != nil {
		return nil, fmt.Errorf("map: %w", err)
	}
	w.Custom = c
	return w, nil
}

// body is the run of the map: it processes every item of the input's array field.
func (m *Map) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	in, err := flow.Fields(r.Input)
	if err != nil {
		return nil, fmt.Errorf("%w: map %s: input %v", agent.ErrInvalidInput, m.Info().Name, err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(in[m.cfg.Field], &items); err != nil || items == nil {
		return nil, fmt.Errorf("%w: map %s: field %q must be an array, got %s", agent.ErrInvalidInput, m.Info().Name, m.cfg.Field, flow.Describe(in[m.cfg.Field]))
	}
	delete(in, m.cfg.Field)
	jobs := make([]job, len(items))
	agents := make([]agent.Agent, len(items))
	for i, item := range items {
		itemIn := maps.Clone(in)
		if f, err := flow.Fields(item); err == nil && len(item) > 0 && item[0] == '{' {
			maps.Copy(itemIn, f)
		} else {
			itemIn[m.cfg.ItemKey] = item
		}
		raw, err := json.Marshal(itemIn)
		if err != nil {
			return nil, err
		}
		jobs[i] = job{Agent: m.cfg.Agent, Input: raw}
		agents[i] = m.cfg.Agent
	}
	results, first, err := fanOut(ctx, r, jobs, m.cfg.MaxConcurrency, m.cfg.CollectErrors)
	if err != nil {
		return nil, err
	}
	if first >= 0 {
		return nil, &BranchError{Workflow: m.Info().Name, Index: first, Agent: agents[first].Info().Name, Err: results[first].err}
	}
	be := &BranchesError{Workflow: m.Info().Name, Results: make([]BranchResult, len(results))}
	outs := make([]json.RawMessage, len(results))
	failed := false
	for i, d := range results {
		be.Results[i] = BranchResult{Index: i, Agent: agents[i].Info().Name, Output: d.out, Err: d.err}
		failed = failed || d.err != nil
		outs[i] = d.out
		if outs[i] == nil {
			outs[i] = json.RawMessage("null")
		}
	}
	if failed {
		return nil, be
	}
	return json.Marshal(map[string][]json.RawMessage{m.cfg.Field: outs})
}
