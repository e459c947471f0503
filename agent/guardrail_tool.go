package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
)

// ToolGuards are the guards of a guarded tool: Before checks the
// arguments before the tool runs, After its result before the caller sees
// it, and OnError rewrites a failed call's error. A replace verdict passes
// redacted arguments to the tool, or a redacted result to the model;
// reject makes the call fail with the [*TripwireError], which the model
// reads as the tool's error (the loop goes on); halt fails the calling AI
// agent's run.
type ToolGuards struct {
	// Before checks the arguments, in order, before the tool runs.
	Before []Guardrail
	// After checks the result, in order, before the caller sees it.
	After []Guardrail
	// OnError, when set, sees each failed call: a refusal of a Before or
	// After guardrail (a [*TripwireError]) or the tool's own error, with
	// the call's arguments as the model sent them. It returns the error
	// the caller gets instead: err itself, an error wrapping err with
	// advice for the model, or a [Halt] that ends the calling AI agent's
	// run. A question, a halt or a stopped stream never reaches it. It runs
	// inside the call's run, so the agents it calls with [CurrentRun] are
	// nested runs of the call, replayed from the journal on resume.
	OnError func(ctx context.Context, args json.RawMessage, err error) error
	// OnEnd, when set, is told of each call's end: its arguments and its
	// error, nil when it succeeded (after OnError). A call that had ended
	// and is replayed from the journal of a resumed run is told too, so a
	// count kept in OnEnd's closure (a retry budget) stays right across a
	// resume. It runs on the call's goroutine, before the caller sees the
	// end; a call whose consumer stopped reading has no end.
	OnEnd func(args json.RawMessage, err error)
}

// GuardTool returns tool with guards around every call of it. Any agent
// can be guarded: a [Func], the sandbox's tool, an MCP tool, a sub-agent.
// The guarded tool has the tool's name, description, schemas and kind.
// Each call is one run: the guardrails' agents run nested in it, and a tool
// whose Run is agentrt.Execute's (every agent loom makes) runs its body inside that
// same run, so one call is one run, one span and one invocation against
// [Limits]; any other tool runs nested in it. The result's parts pass
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
		return nil, fmt.Errorf("%w: tool %s: %w", ErrInvalidConfig, tool.Info().Name, err)
	}
	if err := checkGuardrails("after-guardrail", guards.After); err != nil {
		return nil, fmt.Errorf("%w: tool %s: %w", ErrInvalidConfig, tool.Info().Name, err)
	}
	return guard(tool, guards), nil
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
				out[i] = guard(t, guards)
			}
		}
		return out, nil
	}), nil
}

// guardedTool is a tool behind its guardrails.
type guardedTool struct {
	tool   Agent
	guards ToolGuards
	info   Info // the tool's, without ChecksInput: the guards run first
}

// guard returns tool behind guards.
func guard(tool Agent, guards ToolGuards) *guardedTool {
	info := tool.Info()
	info.Kind = info.kind()
	info.ChecksInput = false
	return &guardedTool{tool: tool, guards: guards, info: info}
}

// Info returns the tool's name, description, kind and schemas.
func (g *guardedTool) Info() Info { return g.info }

// Run checks the arguments, runs the tool, and checks its result.
func (g *guardedTool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error] {
	return execute(ctx, g, input, g.body)
}

// decodeArgs decodes the arguments as the guarded tool does, when it
// does (a guarded tool guarded again).
func (g *guardedTool) decodeArgs(raw json.RawMessage) (any, error) {
	dec, ok := g.tool.(argsDecoder)
	if !ok {
		return nil, nil
	}
	return dec.decodeArgs(raw)
}

// runEnded tells OnEnd of a call's end.
func (g *guardedTool) runEnded(input json.RawMessage, err error) {
	if g.guards.OnEnd != nil {
		g.guards.OnEnd(input, err)
	}
}

// hooks returns the tool's own hooks, which its body runs under.
func (g *guardedTool) hooks() *Hooks {
	if h, ok := g.tool.(interface{ hooks() *Hooks }); ok {
		return h.hooks()
	}
	return nil
}

func (g *guardedTool) body(ctx context.Context, r *Run) (json.RawMessage, error) {
	out, err := g.call(ctx, r)
	if err == nil || g.guards.OnError == nil || errors.Is(err, errStopped) || isPause(err) {
		return out, err
	}
	return nil, g.guards.OnError(ctx, r.Input, err)
}

// call checks the arguments, runs the tool inside r and checks its result.
func (g *guardedTool) call(ctx context.Context, r *Run) (json.RawMessage, error) {
	name := g.tool.Info().Name
	before := guardSubject{stage: StageToolInput, agent: name, content: r.Input}
	if len(g.guards.Before) > 0 {
		before.args, _ = g.tool.(argsDecoder)
	}
	in, err := runGuards(ctx, r, r.emit, g.guards.Before, before)
	if err != nil {
		return nil, err
	}
	out, err := r.inline(ctx, g.tool, in.content)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	res, err := runGuards(ctx, r, r.emit, g.guards.After, guardSubject{stage: StageToolOutput, agent: name, content: out})
	if err != nil {
		return nil, err
	}
	return res.content, nil
}
