package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/loomwork/loom/model"
)

// Toolset supplies tools to an AI agent at the start of each of its runs,
// such as the tools of a remote server whose list can change.
type Toolset interface {
	// Tools returns the tools for a run starting now.
	Tools(ctx context.Context) ([]Agent, error)
}

// ToolsetFunc adapts a function to a [Toolset].
type ToolsetFunc func(ctx context.Context) ([]Agent, error)

// Tools calls f.
func (f ToolsetFunc) Tools(ctx context.Context) ([]Agent, error) { return f(ctx) }

// toolTable is the tools of one run, as the model sees them (by their wire
// names) and by name for the calls that come back.
type toolTable struct {
	tools  []model.Tool
	byName map[string]Agent
}

func (tt *toolTable) add(name string, t Agent) {
	tt.byName[name] = t
	info := t.Info()
	tt.tools = append(tt.tools, model.Tool{Name: name, Description: info.Description, Schema: info.InputSchema})
}

// names lists the tools' wire names for an error message.
func (tt *toolTable) names() string {
	names := make([]string, len(tt.tools))
	for i, t := range tt.tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// resolveTools returns the run's tools: the static ones and those of every
// toolset, each toolset asked now.
func (a *AI) resolveTools(ctx context.Context) (*toolTable, error) {
	if len(a.cfg.Toolsets) == 0 {
		return &a.static, nil
	}
	tt := &toolTable{tools: append([]model.Tool(nil), a.static.tools...), byName: make(map[string]Agent, len(a.static.byName))}
	for n, t := range a.static.byName {
		tt.byName[n] = t
	}
	for i, ts := range a.cfg.Toolsets {
		tools, err := ts.Tools(ctx)
		if err != nil {
			return nil, fmt.Errorf("agent %s: toolset %d: list its tools: %w", a.cfg.Name, i, err)
		}
		for _, t := range tools {
			if t == nil {
				return nil, fmt.Errorf("%w: agent %s: toolset %d returned a nil tool", ErrInvalidConfig, a.cfg.Name, i)
			}
			name := model.ToolNameFor(t.Info().Name)
			if _, dup := tt.byName[name]; dup {
				return nil, fmt.Errorf("%w: agent %s: toolset %d: two tools are offered as %q (from %q): give the toolset a prefix or filter one out", ErrInvalidConfig, a.cfg.Name, i, name, t.Info().Name)
			}
			tt.add(name, t)
		}
	}
	return tt, nil
}

// WithToolsets returns a copy of a that also asks ts for tools at the
// start of each run, before a's own toolsets (nil ones are left out). The copy shares a's model,
// instructions, tools, guardrails and hooks, and is as cheap to make as a
// struct copy: a workflow makes one per run to give its AI step tools that
// hold that run's state (a retry budget, say) in their closures.
func (a *AI) WithToolsets(ts ...Toolset) *AI {
	c := *a
	c.cfg.Toolsets = make([]Toolset, 0, len(ts)+len(a.cfg.Toolsets))
	for _, t := range ts {
		if t != nil {
			c.cfg.Toolsets = append(c.cfg.Toolsets, t)
		}
	}
	c.cfg.Toolsets = append(c.cfg.Toolsets, a.cfg.Toolsets...)
	return &c
}
