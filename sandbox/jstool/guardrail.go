package jstool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// AdmissionGuardrailName is the name of the guardrail
// [AdmissionGuardrail] returns.
const AdmissionGuardrailName = "sandbox_admission"

// AdmissionGuardrail returns a tool guardrail that runs the sandbox's
// admission on the code of a call before it reaches an executor: the size
// limit, the UTF-8 check, the nesting prescan and the pass over goja's
// syntax tree, under lim (zero fields take their defaults, negative ones
// are an error). Code that fails is rejected with the sandbox's own
// message, which the model reads as the tool's error; no executor or
// worker sees it. Code that passes is allowed unchanged, and the executor
// admits it again.
//
// Use it as a Before guardrail of [agent.GuardTool] around the tool
// [New] returns, or around any tool whose arguments carry the code in
// a "code" (or "jsCode") field. A call with no code is allowed, for the
// tool to refuse with its own message.
func AdmissionGuardrail(lim sandbox.Limits) (agent.Guardrail, error) {
	l, err := jsrt.LimitsWithDefaults(lim)
	if err != nil {
		return agent.Guardrail{}, fmt.Errorf("%w: sandbox admission guardrail: %w", agent.ErrInvalidConfig, err)
	}
	return agent.Guardrail{Name: AdmissionGuardrailName, Check: func(_ context.Context, in agent.GuardInput) (agent.Verdict, error) {
		args, ok := in.Args.(Input) // decoded once, by the tool New returns
		if !ok {
			if err := json.Unmarshal(in.Content, &args); err != nil {
				return agent.Reject(fmt.Sprintf("the arguments are not a JSON object with a code field (%v): send {\"code\": \"…\"}", err)), nil
			}
		}
		code := args.Code
		if code == "" {
			code = args.JSCode
		}
		if code == "" {
			return agent.Allow(), nil
		}
		if err := jsrt.Check(code, l); err != nil {
			var e *sandbox.Error
			if errors.As(err, &e) {
				return agent.Reject(e.Message), nil
			}
			return agent.Reject(err.Error()), nil
		}
		return agent.Allow(), nil
	}}, nil
}
