package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Stage is where a [Guardrail] checks: on an AI agent's input or final
// answer, or on a guarded tool's arguments or result.
type Stage string

// The stages.
const (
	// StageInput checks an AI agent's input before its first model call.
	StageInput Stage = "input"
	// StageOutput checks an AI agent's final answer.
	StageOutput Stage = "output"
	// StageToolInput checks a guarded tool's arguments before it runs.
	StageToolInput Stage = "tool_input"
	// StageToolOutput checks a guarded tool's result before the caller
	// (the model) sees it.
	StageToolOutput Stage = "tool_output"
)

// Action is what a [Verdict] decides.
type Action string

// The actions.
const (
	// ActionAllow lets the content pass unchanged; the zero Action allows
	// too.
	ActionAllow Action = "allow"
	// ActionReplace lets Verdict.Content pass in place of the content
	// checked (redaction).
	ActionReplace Action = "replace"
	// ActionReject refuses the content. On an AI agent's input or output it
	// fails the run with a [*TripwireError]. On a tool stage the tool's run
	// fails with the [*TripwireError] instead of running (or instead of
	// returning its result), so the model sees the reason as the tool's
	// error and the loop continues.
	ActionReject Action = "reject"
	// ActionHalt refuses the content and ends the run: on a tool stage the
	// tool's error is [Halt] of the [*TripwireError], so the AI agent calling
	// it fails instead of telling its model.
	ActionHalt Action = "halt"
)

// Verdict is a guardrail's decision on the content it checked.
type Verdict struct {
	// Action is allow (or empty), replace, reject or halt.
	Action Action `json:"action" jsonschema:"enum=allow,enum=replace,enum=reject,enum=halt,description=allow lets the content pass; replace passes content instead; reject refuses it; halt refuses it and ends the whole run."`
	// Reason says why, for the [*TripwireError] and the trace; on a
	// rejected tool call it is what the model reads.
	Reason string `json:"reason,omitempty" jsonschema:"description=Why the content was replaced or refused."`
	// Content is the JSON that passes in place of the checked content when
	// Action is replace: an input object, an output object, tool arguments
	// or a tool result.
	Content json.RawMessage `json:"content,omitempty" jsonschema:"description=With replace: the JSON to pass instead of the checked content."`
}

// Allow returns a verdict that lets the content pass.
func Allow() Verdict { return Verdict{Action: ActionAllow} }

// Replace returns a verdict that passes content in place of what was
// checked, for reason.
func Replace(content json.RawMessage, reason string) Verdict {
	return Verdict{Action: ActionReplace, Content: content, Reason: reason}
}

// Reject returns a verdict that refuses the content for reason.
func Reject(reason string) Verdict { return Verdict{Action: ActionReject, Reason: reason} }

// Trip returns a verdict that refuses the content and ends the run, for
// reason.
func Trip(reason string) Verdict { return Verdict{Action: ActionHalt, Reason: reason} }

// VerdictSchema returns the JSON schema of a [Verdict]: give it to an AI
// agent used as a guardrail as its AIConfig.OutputSchema.
func VerdictSchema() json.RawMessage {
	s, _ := SchemaFor[Verdict]()
	return s
}

// GuardInput is what a guardrail checks. As JSON it is also the input of a
// guardrail that is an agent; its "message" field makes it a valid input
// for an AI agent with the default input schema.
type GuardInput struct {
	// Stage is where the check runs.
	Stage Stage `json:"stage"`
	// Agent names the agent guarded: the AI agent, or the tool.
	Agent string `json:"agent"`
	// Message is the content as text: the input's or answer's text field,
	// else the JSON itself.
	Message string `json:"message"`
	// Content is the JSON checked: the AI agent's input object or output
	// object, or the tool's arguments or result. On a partial check it is
	// the answer's text so far, as a JSON string.
	Content json.RawMessage `json:"content"`
	// Partial marks a check of an answer still streaming (see
	// [OutputHold]); only the guardrails with a Check function see it.
	Partial bool `json:"partial,omitempty"`
	// Args is, before a call of a tool that checks its arguments against
	// its input schema ([Func], and tools built on one such as the
	// sandbox's), the arguments in Content as the tool decodes them: for
	// a Func[In, Out] an In. The tool runs on this same value, so a Check
	// function reads it instead of decoding Content again, and must not
	// change it. It is nil at other stages, for other tools, and when the
	// arguments fail the schema (the tool then refuses them).
	Args any `json:"-"`
}

// Guardrail checks content at one [Stage] and returns a [Verdict]. It is
// a Go function (Check) or an agent (Agent), such as an AI classifier
// with [VerdictSchema] as its output schema. An agent runs as a child run
// of the run it guards, so its tokens count against that run's limits and
// usage, and a resumed run replays it from its journal instead of calling
// it again. An error from either fails closed: the content does not pass.
type Guardrail struct {
	// Name identifies the guardrail in errors and traces.
	Name string
	// Check decides on in. Set Check or Agent, not both.
	Check func(ctx context.Context, in GuardInput) (Verdict, error)
	// Agent decides on the JSON of a [GuardInput]; its output is a
	// [Verdict] and must have an "action" field.
	Agent Agent
	// Parallel runs an input guardrail beside the agent's first model call
	// instead of before it. It saves the guardrail's latency but spends the
	// first call's tokens even when the guardrail trips: the call is
	// cancelled then, and its streamed text, held back until every input
	// guardrail passed, never reaches the caller. A parallel guardrail
	// cannot replace the input. Other stages ignore it.
	Parallel bool
}

// checkGuardrails checks a list of guardrails for a constructor.
func checkGuardrails(what string, gs []Guardrail) error {
	seen := make(map[string]bool, len(gs))
	for i, g := range gs {
		switch {
		case g.Name == "":
			return fmt.Errorf("%s %d has no name: give every guardrail a Name", what, i)
		case seen[g.Name]:
			return fmt.Errorf("two %s are named %q: guardrail names must be unique", what, g.Name)
		case (g.Check == nil) == (g.Agent == nil):
			return fmt.Errorf("%s %q must set exactly one of Check and Agent", what, g.Name)
		}
		seen[g.Name] = true
	}
	return nil
}

// guardSubject is the content one list of guardrails checks.
type guardSubject struct {
	stage   Stage
	agent   string
	key     string // the text field of an input or output object
	content json.RawMessage
	args    argsDecoder // decodes a tool's arguments for GuardInput.Args; nil: none
}

// guardResult is the content that passed and the guardrail that last
// replaced it, if any.
type guardResult struct {
	content    json.RawMessage
	replacedBy string
}

// runGuards runs gs one after the other on s, each seeing the content the
// previous one let through. It returns the content that passed, or the
// [*TripwireError] (or, for halt on a tool stage, the [*HaltError]) of the
// first guardrail that refused it. Agent guardrails run as children of r,
// their events passed to emit.
func runGuards(ctx context.Context, r *Run, emit func(Event) bool, gs []Guardrail, s guardSubject) (guardResult, error) {
	res := guardResult{content: s.content}
	var in GuardInput
	fresh := true
	for _, g := range gs {
		if fresh {
			// The text and the decoded arguments of new content.
			fresh = false
			in = GuardInput{Stage: s.stage, Agent: s.agent, Message: textOf(res.content, s.key), Content: res.content}
			if s.args != nil {
				in.Args = r.argsFor(s.args, res.content)
			}
		}
		v, err := runGuard(ctx, r, emit, g, in)
		if err != nil {
			return res, err
		}
		switch v.Action {
		case ActionReplace:
			res.content, res.replacedBy = v.Content, g.Name
			fresh = true
		case ActionReject, ActionHalt:
			trip := &TripwireError{Guardrail: g.Name, Stage: s.stage, Agent: s.agent, Reason: v.Reason}
			if v.Action == ActionHalt && (s.stage == StageToolInput || s.stage == StageToolOutput) {
				return res, Halt(trip)
			}
			return res, trip
		}
	}
	return res, nil
}

// runGuard runs one guardrail in its span and checks its verdict.
func runGuard(ctx context.Context, r *Run, emit func(Event) bool, g Guardrail, in GuardInput) (Verdict, error) {
	gctx, span := startGuardSpan(ctx, g.Name, in)
	v, err := decide(gctx, r, emit, g, in)
	if err == nil {
		err = v.check(g.Name)
	}
	if err != nil && !errors.Is(err, errStopped) {
		err = fmt.Errorf("guardrail %s on %s of %s: %w", g.Name, in.Stage, in.Agent, err)
	}
	endGuardSpan(ctx, span, g.Name, in, v, err)
	if !errors.Is(err, errStopped) {
		recordGuardCheck(ctx, g.Name, in, v.Action, err)
	}
	return v, err
}

// decide asks the guardrail's function or agent for its verdict.
func decide(ctx context.Context, r *Run, emit func(Event) bool, g Guardrail, in GuardInput) (Verdict, error) {
	if g.Check != nil {
		return g.Check(ctx, in)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return Verdict{}, err
	}
	end, err := r.child(ctx, g.Agent, raw, emit)
	if err != nil {
		return Verdict{}, err
	}
	return verdictOf(g.Agent.Info().Name, end.Output)
}

// verdictOf decodes an agent guardrail's output.
func verdictOf(name string, out json.RawMessage) (Verdict, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(out, &fields); err != nil || fields["action"] == nil {
		return Verdict{}, fmt.Errorf("agent %s answered %.200s, which is not a verdict with an action: give it agent.VerdictSchema() as its output schema", name, out)
	}
	var v Verdict
	if err := json.Unmarshal(out, &v); err != nil {
		return Verdict{}, fmt.Errorf("agent %s answered %.200s, which is not a verdict: %w", name, out, err)
	}
	return v, nil
}

// check refuses a verdict that cannot be acted on.
func (v Verdict) check(name string) error {
	switch v.Action {
	case "", ActionAllow, ActionReject, ActionHalt:
		return nil
	case ActionReplace:
		if !json.Valid(v.Content) {
			return fmt.Errorf("guardrail %s replaced the content with %.200q, which is not JSON: set Verdict.Content to the JSON to pass", name, v.Content)
		}
		return nil
	}
	return fmt.Errorf("guardrail %s answered action %q: want allow, replace, reject or halt", name, v.Action)
}

// textOf is the text a guardrail reads of content: its key field when that
// is a string, a JSON string's value, or the JSON itself.
func textOf(content json.RawMessage, key string) string {
	var s string
	if t := bytes.TrimLeft(content, " \t\r\n"); len(t) > 0 && t[0] == '"' && json.Unmarshal(content, &s) == nil {
		return s
	}
	if key != "" {
		var fields map[string]json.RawMessage
		if json.Unmarshal(content, &fields) == nil && json.Unmarshal(fields[key], &s) == nil {
			return s
		}
	}
	return string(content)
}
