package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/loomwork/loom/model"
)

// aiGuards are an AI agent's guardrails, sorted at construction.
type aiGuards struct {
	input    []Guardrail // blocking input guardrails, before the first call
	parallel []Guardrail // input guardrails beside the first call
	output   []Guardrail
	hold     bool
}

// newAIGuards checks and sorts cfg's guardrails.
func newAIGuards(cfg AIConfig) (aiGuards, error) {
	var g aiGuards
	if err := checkGuardrails("input guardrail", cfg.InputGuardrails); err != nil {
		return g, err
	}
	if err := checkGuardrails("output guardrail", cfg.OutputGuardrails); err != nil {
		return g, err
	}
	if cfg.OutputHold.Window < 0 {
		return g, fmt.Errorf("OutputHold.Window is %d; it must be positive, or zero to hold the whole answer", cfg.OutputHold.Window)
	}
	if cfg.OutputHold.on() && len(cfg.OutputGuardrails) == 0 {
		return g, fmt.Errorf("OutputHold is set but there are no OutputGuardrails to wait for: add one or drop the hold")
	}
	for _, gr := range cfg.InputGuardrails {
		if gr.Parallel {
			g.parallel = append(g.parallel, gr)
		} else {
			g.input = append(g.input, gr)
		}
	}
	g.output, g.hold = cfg.OutputGuardrails, cfg.OutputHold.on()
	return g, nil
}

// guardInput runs the blocking input guardrails and returns the input the
// run goes on with.
func (a *AI) guardInput(ctx context.Context, r *Run) (json.RawMessage, error) {
	if len(a.guards.input) == 0 {
		return r.Input, nil
	}
	res, err := runGuards(ctx, r, r.emit, a.guards.input, guardSubject{stage: StageInput, agent: a.cfg.Name, key: a.cfg.InputKey, content: r.Input})
	if err != nil {
		return nil, err
	}
	if res.replacedBy != "" {
		if err := a.inCheck.validate(a.cfg.Name, "input", res.content); err != nil {
			return nil, fmt.Errorf("guardrail %s replaced the input with one its agent refuses: %w", res.replacedBy, err)
		}
	}
	return res.content, nil
}

// callBeside makes the first model call with the parallel input guardrails
// running beside it. The call's text is held until every guardrail
// passed; a refusal cancels the call and fails the run before any text or
// tool call is emitted. A resumed run whose journal holds the call runs
// the guardrails (replaying those that are agents) and then replays it.
func (a *AI) callBeside(ctx context.Context, r *Run, m model.Model, req model.Request, input json.RawMessage) (*pendingCall, error) {
	r.calls++
	rec := r.replay.response(r.calls)
	if rec == nil {
		if err := r.budget.checkTokens(); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	guards := a.guards.parallel
	subject := guardSubject{stage: StageInput, agent: a.cfg.Name, key: a.cfg.InputKey, content: input}
	p := &pendingCall{}
	errs := make([]error, len(guards)+1)
	err := r.fan(ctx, len(guards)+1, fanOptions{}, func(ctx context.Context, i int, emit func(Event) bool) (err error) {
		// These tasks run on goroutines of their own, outside any run's
		// recovery: a panicking model or check must fail the run, not the
		// program.
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("%w: %s: beside the first model call: %v\n%s", ErrPanic, a.cfg.Name, v, debug.Stack())
				errs[i] = err
			}
		}()
		if i == 0 {
			if rec == nil {
				errs[0] = a.stream(ctx, m, req, p, func(d string) error { p.hold(d); return nil })
			}
			return errs[0]
		}
		res, err := runGuards(ctx, r, emit, guards[i-1:i], subject)
		if err == nil && res.replacedBy != "" {
			err = fmt.Errorf("%w: guardrail %s runs in parallel with the first model call, so it cannot replace the input: make it blocking (Parallel false)", ErrInvalidConfig, res.replacedBy)
		}
		errs[i] = err
		return err
	}, func(i int, cause error) { errs[i] = cause })
	if err != nil {
		return nil, err
	}
	if err := firstFailure(errs); err != nil {
		return nil, err
	}
	if rec != nil {
		resp, err := replayCall(r, rec)
		return &pendingCall{resp: resp, settled: true}, err
	}
	return p, nil
}

// firstFailure picks the error to report from a call beside its
// guardrails: a tripwire, then a guardrail's own failure, then the call's,
// before the cancellations that the first failure caused.
func firstFailure(errs []error) error {
	for _, e := range errs[1:] {
		if errors.Is(e, ErrTripwire) {
			return e
		}
	}
	for _, e := range errs[1:] {
		if e != nil && !errors.Is(e, context.Canceled) {
			return e
		}
	}
	if errs[0] != nil {
		return errs[0]
	}
	for _, e := range errs[1:] {
		if e != nil {
			return e
		}
	}
	return nil
}

// guardOutput runs the output guardrails on the final answer out of call
// p, releases the answer held back when they pass (or drops it when they
// refuse), and returns the output and the response the conversation keeps
// (the replaced text, when a guardrail replaced it).
func (a *AI) guardOutput(ctx context.Context, r *Run, p *pendingCall, out json.RawMessage) (json.RawMessage, *model.Response, error) {
	key := a.cfg.OutputKey
	if a.outCheck != nil {
		key = ""
	}
	if !p.settled {
		if err := p.charge(r); err != nil {
			return nil, nil, err
		}
	}
	res, err := runGuards(ctx, r, r.emit, a.guards.output, guardSubject{stage: StageOutput, agent: a.cfg.Name, key: key, content: out})
	if err == nil && res.replacedBy != "" {
		err = a.checkReplacedOutput(res)
	}
	resp := p.resp
	if err == nil && res.replacedBy != "" {
		text := textOf(res.content, key)
		cp := *resp
		cp.Message = model.AssistantMessage(text)
		resp = &cp
		if a.guards.hold {
			err = p.replaceText(text, res.replacedBy, a.cfg.Name)
			p.resp = resp
		}
	}
	if err != nil {
		if derr := p.drop(r); derr != nil {
			return nil, nil, derr
		}
		return nil, nil, err
	}
	if err := p.settle(r, true); err != nil {
		return nil, nil, err
	}
	return res.content, resp, nil
}

// checkReplacedOutput refuses a replaced output the agent could not
// return: one failing its output schema, or, without one, anything but an
// object holding the answer's text.
func (a *AI) checkReplacedOutput(res guardResult) error {
	if a.outCheck != nil {
		if err := a.outCheck.validate(a.cfg.Name, "output", res.content); err != nil {
			return fmt.Errorf("guardrail %s replaced the output with one that fails its schema: %w", res.replacedBy, err)
		}
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(res.content, &fields) != nil {
		return fmt.Errorf("guardrail %s replaced the output with %.200s: replace it with an object such as {%q: \"…\"}", res.replacedBy, res.content, a.cfg.OutputKey)
	}
	return nil
}
