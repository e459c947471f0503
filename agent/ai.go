package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"text/template"

	"github.com/loomwork/loom/model"
)

// toolRouter is the tool mode of a router agent: one model call that must
// call one of the agent's tools, whose output becomes the agent's output (a
// handoff). Use it as AIConfig.ToolChoice = [Router]().
const toolRouter model.ToolMode = "router"

// Router returns the tool choice that makes an AI agent a router.
func Router() model.ToolChoice { return model.ToolChoice{Mode: toolRouter} }

// The defaults of [AIConfig].
const (
	defaultMaxTurns         = 10
	defaultMaxParallelTools = 4
	defaultRepairTurns      = 1
)

// AIConfig configures an [AI] agent.
type AIConfig struct {
	// Name identifies the agent; it must be a valid tool name.
	Name string
	// Description tells other agents' models what this one does.
	Description string
	// Instructions is the system prompt, a text/template executed over the
	// input object: "Answer in {{.language}}." Empty sends no system message.
	Instructions string
	// Model is the agent's own model. When nil, the run's model
	// ([Env].Model) is used, then the default ([Env].DefaultModel).
	Model model.Model
	// Tools are the agents the model may call, by their names, which must
	// be valid tool names for every provider ([model.ValidToolName]).
	Tools []Agent
	// Toolsets supply more tools, resolved at the start of each run, so a
	// remote server's list may change between runs. A tool name a provider
	// would reject is offered to the model as [model.ToolNameFor] of it,
	// and calls of that name reach the tool.
	Toolsets []Toolset
	// ToolChoice: auto (zero), none, required or a named tool, which apply
	// to the first model call (later calls are auto, so the model can
	// answer), or [Router]().
	ToolChoice model.ToolChoice
	// Options are sent with every model call.
	Options model.Options
	// InputSchema is the input's JSON schema; by default an object with one
	// string field, InputKey.
	InputSchema json.RawMessage
	// OutputSchema, when set, asks the model for structured output: the
	// request carries the schema, and the answer is parsed and validated,
	// with RepairTurns retries on invalid output. Use [SchemaFor] to derive
	// it from a Go type. Without it the output is {OutputKey: text}.
	OutputSchema json.RawMessage
	// InputKey is the input field holding the user's text (default
	// "message"); OutputKey the output field for the answer's text.
	InputKey, OutputKey string
	// MaxTurns bounds the model calls of one run (default 10).
	MaxTurns int
	// MaxParallelTools caps the tool calls of one turn run at once
	// (0 means the default, 4; 1 runs them one by one).
	MaxParallelTools int
	// RepairTurns is the number of extra model calls allowed to fix invalid
	// structured output (0 means the default, 1; negative means none).
	RepairTurns int `config:"negative"`
	// FailOnToolError makes a failing tool fail the run with a [ToolError],
	// instead of sending the error back to the model. Mistakes of the model
	// itself (an unknown tool, arguments that are not JSON or fail the
	// tool's schema) always go back to the model.
	FailOnToolError bool
	// Hooks fire for this agent's runs and tool calls.
	Hooks Hooks
	// InputGuardrails check the input before the first model call, one
	// after the other, unless marked Parallel (see [Guardrail]). A refusal
	// fails the run with a [*TripwireError] before any tool runs or any
	// text reaches the caller; a replace verdict changes the input the
	// conversation is built from.
	InputGuardrails []Guardrail
	// OutputGuardrails check the final answer (not text written beside
	// tool calls), one after the other. A refusal fails the run with a
	// [*TripwireError]; a replace verdict changes the output and the
	// answer kept in the conversation. Without OutputHold the answer has
	// streamed to the caller before they judge it.
	OutputGuardrails []Guardrail
	// OutputHold holds the streamed answer back until the output
	// guardrails pass it; see [OutputHold] for the latency it costs.
	OutputHold OutputHold
}

// AI is an LLM agent: it sends its instructions, the conversation and the
// input to a model, runs the tools the model calls, sends the results back
// paired by call id, and repeats until the model answers, within MaxTurns.
type AI struct {
	cfg      AIConfig
	tmpl     *template.Template
	static   toolTable
	in, out  json.RawMessage
	inCheck  *compiledSchema
	outCheck *compiledSchema
	guards   aiGuards
	info     Info
}

// NewAI checks cfg and returns the agent. Errors name what to fix: an
// invalid or duplicate tool name, a nil tool, options out of range, a
// template that does not parse, a schema that does not compile.
func NewAI(cfg AIConfig) (*AI, error) {
	if err := checkName(cfg.Name); err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) (*AI, error) {
		return nil, fmt.Errorf("%w: agent %q: %s", ErrInvalidConfig, cfg.Name, fmt.Sprintf(format, args...))
	}
	if cfg.InputKey == "" {
		cfg.InputKey = DefaultTextKey
	}
	if cfg.OutputKey == "" {
		cfg.OutputKey = DefaultTextKey
	}
	if cfg.MaxTurns == 0 {
		cfg.MaxTurns = defaultMaxTurns
	}
	if cfg.MaxTurns < 0 {
		return fail("MaxTurns is %d; it must be positive", cfg.MaxTurns)
	}
	switch {
	case cfg.MaxParallelTools < 0:
		return fail("MaxParallelTools is %d; use 0 for the default of %d, or a positive number", cfg.MaxParallelTools, defaultMaxParallelTools)
	case cfg.MaxParallelTools == 0:
		cfg.MaxParallelTools = defaultMaxParallelTools
	}
	switch {
	case cfg.RepairTurns == 0:
		cfg.RepairTurns = defaultRepairTurns
	case cfg.RepairTurns < 0:
		cfg.RepairTurns = 0
	}
	if err := cfg.Options.Validate(); err != nil {
		return nil, fmt.Errorf("agent %q: %w", cfg.Name, err)
	}
	guards, err := newAIGuards(cfg)
	if err != nil {
		return fail("%v", err)
	}
	a := &AI{cfg: cfg, static: toolTable{byName: make(map[string]Agent, len(cfg.Tools))}, guards: guards}
	for i, t := range cfg.Tools {
		if t == nil {
			return fail("tool %d is nil", i)
		}
		name := t.Info().Name
		if !model.ValidToolName(name) {
			return fail("tool name %q is not a valid identifier: use letters, digits, '_' or '-', starting with a letter or '_'", name)
		}
		if _, dup := a.static.byName[name]; dup {
			return fail("two tools are named %q: tool names must be unique", name)
		}
		a.static.add(name, t)
	}
	for i, ts := range cfg.Toolsets {
		if ts == nil {
			return fail("toolset %d is nil", i)
		}
	}
	dynamic := len(cfg.Toolsets) > 0
	switch cfg.ToolChoice.Mode {
	case model.ToolAuto, model.ToolNone:
	case model.ToolRequired, toolRouter:
		if len(a.static.tools) == 0 && !dynamic {
			return fail("tool choice %q needs at least one tool", cfg.ToolChoice.Mode)
		}
	case model.ToolNamed:
		if _, ok := a.static.byName[cfg.ToolChoice.Name]; !ok && !dynamic {
			return fail("tool choice names %q, which is not one of its tools", cfg.ToolChoice.Name)
		}
	default:
		return fail("unknown tool choice %q (want auto, none, required, named or router)", cfg.ToolChoice.Mode)
	}
	if strings.Contains(cfg.Instructions, "{{") {
		t, err := template.New(cfg.Name).Option("missingkey=zero").Parse(cfg.Instructions)
		if err != nil {
			return fail("instructions template: %v", err)
		}
		a.tmpl = t
	}
	a.in = cfg.InputSchema
	if a.in == nil {
		a.in = TextSchema(cfg.InputKey, "The request, in plain language.", true)
	}
	check, err := compileSchema(a.in)
	if err != nil {
		return fail("input schema: %v", err)
	}
	a.inCheck = check
	a.out = cfg.OutputSchema
	if a.out != nil {
		if a.outCheck, err = compileSchema(a.out); err != nil {
			return fail("output schema: %v", err)
		}
	} else {
		a.out = TextSchema(cfg.OutputKey, "The answer.", false)
	}
	a.info = Info{Name: cfg.Name, Description: cfg.Description, Kind: "ai", InputSchema: a.in, OutputSchema: a.out}
	return a, nil
}

// TextSchema returns the schema of an object whose field key holds text,
// described by description, and required when required is set; other
// fields are allowed. It is the default input and output schema of an AI
// agent, under its InputKey and OutputKey.
func TextSchema(key, description string, required bool) json.RawMessage {
	s := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{key: map[string]any{"type": "string", "description": description}},
		"additionalProperties": true,
	}
	if required {
		s["required"] = []string{key}
	}
	b, _ := json.Marshal(s)
	return b
}

// Info returns the agent's name and description, its kind "ai", and its
// input and output schemas (AIConfig's, or text under InputKey and
// OutputKey).
func (a *AI) Info() Info { return a.info }

// Tools returns the agent's tools.
func (a *AI) Tools() []Agent { return a.cfg.Tools }

func (a *AI) hooks() *Hooks {
	h := &a.cfg.Hooks
	if h.RunStart == nil && h.RunEnd == nil && h.Error == nil && h.ToolStart == nil && h.ToolEnd == nil {
		return nil
	}
	return h
}

// Run runs the tool loop on input.
func (a *AI) Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error] {
	return execute(ctx, a, input, a.body)
}
