package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// ToolGuards are the guardrails of a guarded tool: Before checks the
// arguments before the tool runs, After its result before the caller sees
// it. A replace verdict passes redacted arguments to the tool, or a
// redacted result to the model; reject makes the call fail with the
// [*TripwireError], which the model reads as the tool's error (the loop
// goes on); halt fails the calling AI agent's run.
type ToolGuards struct {
	Before []Guardrail
	After  []Guardrail
}

// GuardTool returns tool with guards around every call of it. Any agent
// can be guarded: a [Func], the sandbox's tool, an MCP tool, a sub-agent.
// The guarded tool has the tool's name, description and schemas; each
// call is one run of the guarded tool with the tool's own run nested in
// it (both count as invocations against [Limits]). The result's parts pass
// through unchanged.
//
// The events of the tool's own run, including its unredacted output, reach
// the stream's consumer as they happen: an After guardrail decides what
// the model sees, not what the program running the agent sees.
func GuardTool(tool Agent, guards ToolGuards) (Agent, error) {
	if tool == nil {
		return nil, fmt.Errorf("%w: GuardTool was given a nil tool", ErrInvalidConfig)
	}
	if err := checkGuardrails("before-guardrail", guards.Before); err != nil {
		return nil, fmt.Errorf("%w: tool %s: %w", ErrInvalidConfig, tool.Name(), err)
	}
	if err := checkGuardrails("after-guardrail", guards.After); err != nil {
		return nil, fmt.Errorf("%w: tool %s: %w", ErrInvalidConfig, tool.Name(), err)
	}
	return &guardedTool{tool: tool, guards: guards}, nil
}

// GuardToolset returns ts with every tool it supplies guarded by guards
// (see [GuardTool]).
func GuardToolset(ts Toolset, guards ToolGuards) (Toolset, error) {
	if ts == nil {
		return nil, fmt.Errorf("%w: GuardToolset was given a nil toolset", ErrInvalidConfig)
	}
	if err := checkGuardrails("before-guardrail", guards.Before); err != nil {
		return nil, fmt.Errorf("%w: toolset: %w", ErrInvalidConfig, err)
	}
	if err := checkGuardrails("after-guardrail", guards.After); err != nil {
		return nil, fmt.Errorf("%w: toolset: %w", ErrInvalidConfig, err)
	}
	return ToolsetFunc(func(ctx context.Context) ([]Agent, error) {
		tools, err := ts.Tools(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]Agent, len(tools))
		for i, t := range tools {
			if t != nil { // the AI agent reports a nil tool
				out[i] = &guardedTool{tool: t, guards: guards}
			}
		}
		return out, nil
	}), nil
}

// guardedTool is a tool behind its guardrails.
type guardedTool struct {
	tool   Agent
	guards ToolGuards
}

// Name returns the tool's name.
func (g *guardedTool) Name() string { return g.tool.Name() }

// Description returns the tool's description.
func (g *guardedTool) Description() string { return g.tool.Description() }

// InputSchema returns the tool's input schema.
func (g *guardedTool) InputSchema() json.RawMessage { return g.tool.InputSchema() }

// OutputSchema returns the tool's output schema.
func (g *guardedTool) OutputSchema() json.RawMessage { return g.tool.OutputSchema() }

// Kind returns the tool's kind.
func (g *guardedTool) Kind() string { return KindOf(g.tool) }

// Run checks the arguments, runs the tool, and checks its result.
func (g *guardedTool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error] {
	return Execute(ctx, g, input, g.body)
}

func (g *guardedTool) body(ctx context.Context, r *Run) (json.RawMessage, error) {
	name := g.tool.Name()
	in, err := runGuards(ctx, r, r.Emit, g.guards.Before, guardSubject{stage: StageToolInput, agent: name, content: r.Input})
	if err != nil {
		return nil, err
	}
	end, err := r.Child(ctx, g.tool, in.content)
	if err != nil {
		return nil, err
	}
	r.SetResultParts(end.Parts...)
	out := end.Output
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	res, err := runGuards(ctx, r, r.Emit, g.guards.After, guardSubject{stage: StageToolOutput, agent: name, content: out})
	if err != nil {
		return nil, err
	}
	return res.content, nil
}
