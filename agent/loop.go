package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loomwork/loom/model"
)

// body is one AI run: build the conversation, then call the model and run
// tools until it answers.
func (a *AI) body(ctx context.Context, r *Run) (out json.RawMessage, err error) {
	defer func() {
		// Tool runs skipped on a resume count before the run ends.
		if serr := r.settleSkips(ctx, true); serr != nil && err == nil {
			out, err = nil, serr
		}
	}()
	m := resolveModel(ctx, a.cfg.Model)
	if m == nil {
		return nil, fmt.Errorf("%w: agent %s: set AIConfig.Model, pass a model for the run with agent.WithEnv(ctx, agent.Env{Model: m}), or give the engine a default model", ErrNoModel, a.cfg.Name)
	}
	parsed, err := parseInput(a.cfg.Name, r.Input)
	if err != nil {
		return nil, err
	}
	if err := a.inCheck.validateInput(a.cfg.Name, parsed); err != nil {
		return nil, err
	}
	input, err := a.guardInput(ctx, r)
	if err != nil {
		return nil, err
	}
	if !sameBytes(input, r.Input) {
		parsed = nil // a guardrail replaced it
	}
	msgs, start, err := a.conversation(ctx, r, input, parsed)
	if err != nil {
		return nil, err
	}
	tt, err := a.resolveTools(ctx)
	if err != nil {
		return nil, err
	}
	req := model.Request{Messages: msgs, Tools: tt.tools, ToolChoice: a.cfg.ToolChoice, Options: a.cfg.Options}
	router := a.cfg.ToolChoice.Mode == toolRouter
	if router {
		req.ToolChoice = model.ToolChoice{Mode: model.ToolRequired}
	}
	if a.outCheck != nil && !router {
		req.ResponseSchema = &model.ResponseSchema{Name: a.cfg.Name, Description: a.cfg.Description, Schema: a.cfg.OutputSchema}
	}
	repairs := a.cfg.RepairTurns
	st := &AIState{}
	r.setState(st)
	defer func() { r.messages = req.Messages[start:] }()
	for turn := 1; ; turn++ {
		if turn > a.cfg.MaxTurns {
			return nil, &LimitError{Limit: LimitTurns, Used: int64(turn - 1), Max: int64(a.cfg.MaxTurns)}
		}
		var p *pendingCall
		if turn == 1 && len(a.guards.parallel) > 0 {
			p, err = a.callBeside(ctx, r, m, req, input)
		} else {
			p, err = a.call(ctx, r, m, req)
		}
		if err != nil {
			return nil, err
		}
		resp := p.resp
		r.finish = resp.FinishReason
		// A final answer under an output hold waits for its guardrails.
		final := !router && len(resp.Message.ToolCalls()) == 0
		if !final || !a.guards.hold {
			if err := p.settle(r, true); err != nil {
				return nil, err
			}
		}
		if err := resp.CutToolCall(); err != nil {
			// The call cannot be run with half its arguments.
			return nil, fmt.Errorf("agent %s: model %s:%s: %w", a.cfg.Name, m.Provider(), m.Name(), err)
		}
		st.Turn, st.Usage = turn, r.usage
		calls := resp.Message.ToolCalls()
		if router {
			req.Messages = append(req.Messages, resp.Message)
			return a.route(ctx, r, tt, resp)
		}
		if len(calls) == 0 {
			out, err := a.output(resp.Message.Text())
			var ve *ValidationError
			if errors.As(err, &ve) && repairs > 0 {
				if err := p.settle(r, false); err != nil {
					return nil, err
				}
				repairs--
				req.Messages = append(req.Messages, resp.Message, model.UserMessage(repairPrompt(ve)))
				continue
			}
			if err != nil {
				// Under a hold the failed answer is not emitted: it
				// was never checked.
				if serr := p.drop(r); serr != nil {
					return nil, serr
				}
				req.Messages = append(req.Messages, resp.Message)
				return nil, err
			}
			if len(a.guards.output) > 0 {
				if out, resp, err = a.guardOutput(ctx, r, p, out); err != nil {
					return nil, err
				}
			}
			req.Messages = append(req.Messages, resp.Message)
			return out, nil
		}
		req.Messages = append(req.Messages, resp.Message)
		st.Messages, st.Pending, st.Results = req.Messages, calls, nil
		results, err := a.runTools(ctx, r, tt, calls)
		if err != nil {
			return nil, err
		}
		req.Messages = append(req.Messages, model.ToolMessage(results...))
		st.Messages, st.Pending, st.Results = req.Messages, nil, results
		if req.ToolChoice.Mode == model.ToolRequired || req.ToolChoice.Mode == model.ToolNamed {
			req.ToolChoice = model.ToolChoice{}
		}
	}
}

// conversation builds the messages of the first call: the instructions,
// the history meant for this run, and the input (the run's input as the
// input guardrails let it through; parsed is it as its schema check
// parsed it, nil when a guardrail replaced it). start is where this run's
// own messages begin.
func (a *AI) conversation(ctx context.Context, r *Run, input json.RawMessage, parsed any) (msgs []model.Message, start int, err error) {
	text, hasText, hasFields, err := a.inputText(input, parsed)
	if err != nil {
		return nil, 0, err
	}
	hist := r.history.msgs
	msgs = make([]model.Message, 0, len(hist)+4)
	if a.cfg.Instructions != "" {
		sys := a.cfg.Instructions
		if a.tmpl != nil {
			var data map[string]any
			_ = json.Unmarshal(input, &data)
			var b strings.Builder
			if err := a.tmpl.Execute(&b, data); err != nil {
				return nil, 0, fmt.Errorf("agent %s: instructions template: %w", a.cfg.Name, err)
			}
			sys = b.String()
		}
		msgs = append(msgs, model.SystemMessage(sys))
	}
	msgs = append(msgs, hist...)
	start = len(msgs)
	if hasText {
		msgs = append(msgs, model.UserMessage(text))
	} else if hasFields {
		msgs = append(msgs, model.UserMessage(string(input)))
	}
	if len(msgs) == start && len(hist) == 0 {
		return nil, 0, &ValidationError{Agent: a.cfg.Name, What: "input", Issues: []Issue{{Path: a.cfg.InputKey, Rule: "required"}}, kind: ErrInvalidInput}
	}
	return msgs, start, nil
}

// inputText returns the input's text field, whether it has one, and
// whether the input has any field. It reads the parsed input when it can
// and decodes the text when the field is not a string (whose JSON text is
// the message) or there is no parsed input.
func (a *AI) inputText(input json.RawMessage, parsed any) (text string, hasText, hasFields bool, err error) {
	if m, ok := parsed.(map[string]any); ok {
		v, has := m[a.cfg.InputKey]
		if s, isText := v.(string); isText || !has {
			return s, has, len(m) > 0, nil
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil {
		return "", false, false, &ValidationError{Agent: a.cfg.Name, What: "input", Issues: []Issue{{Rule: "expected a JSON object: " + err.Error()}}, kind: ErrInvalidInput}
	}
	text, hasText = textField(fields, a.cfg.InputKey)
	return text, hasText, len(fields) > 0, nil
}

func textField(fields map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := fields[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw), true
	}
	return s, true
}

// call makes one model call, streaming text deltas as events (or holding
// them back under an output hold), and returns its answer to be settled
// with an EventModelResponse. A resumed run whose journal holds the call
// replays it instead.
func (a *AI) call(ctx context.Context, r *Run, m model.Model, req model.Request) (*pendingCall, error) {
	r.calls++
	if rec := r.replay.response(r.calls); rec != nil {
		resp, err := replayCall(r, rec)
		return &pendingCall{resp: resp, settled: true}, err
	}
	if err := r.budget.checkTokens(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &pendingCall{}
	sink := func(d string) error {
		if !r.emit(Event{Kind: EventTextDelta, Text: d}) {
			return errStopped
		}
		return nil
	}
	if a.guards.hold {
		sink = func(d string) error { return a.holdDelta(ctx, r, p, d) }
	}
	if err := a.stream(ctx, m, req, p, sink); err != nil {
		return nil, err
	}
	return p, nil
}

// stream makes the model call, passing each text delta to sink, and sets
// p's response and cost. An error from sink ends the call.
func (a *AI) stream(ctx context.Context, m model.Model, req model.Request, p *pendingCall, sink func(string) error) error {
	cctx, span := startChatSpan(ctx, m, &req)
	start := now(ctx)
	var asm model.Assembler
	for c, err := range m.Stream(cctx, req) {
		if err != nil {
			resp := asm.Response()
			err = fmt.Errorf("agent %s: model %s:%s: %w", a.cfg.Name, m.Provider(), m.Name(), err)
			endChatSpan(cctx, span, resp, -1, err)
			recordChat(ctx, m, start, nil, err)
			return err
		}
		asm.Add(c)
		if c.TextDelta != "" {
			if err := sink(c.TextDelta); err != nil {
				endChatSpan(cctx, span, nil, -1, err)
				return err
			}
		}
	}
	resp := asm.Response()
	cost, known := priceOf(ctx, m, resp.Usage)
	if !known {
		cost = -1
	}
	endChatSpan(cctx, span, resp, cost, nil)
	recordChat(ctx, m, start, resp, nil)
	p.resp, p.cost = resp, max(cost, 0)
	return nil
}

// replayCall yields a recorded model call's events again and returns its
// recorded response.
func replayCall(r *Run, rec []Event) (*model.Response, error) {
	var resp *model.Response
	for _, ev := range rec {
		if ev.Kind == EventUsage {
			r.budget.addReplay(ev.Usage, ev.Cost)
		}
		if ev.Kind == EventModelResponse {
			resp = ev.Response
		}
		ev.RunID = ""
		if !r.emit(ev) {
			return nil, errStopped
		}
	}
	if resp == nil {
		return nil, fmt.Errorf("agent %s: the journal's model call has no response", r.Agent.Info().Name)
	}
	return resp, nil
}

// output turns the final answer into the agent's output.
func (a *AI) output(text string) (json.RawMessage, error) {
	if a.outCheck == nil {
		return json.Marshal(map[string]string{a.cfg.OutputKey: text})
	}
	raw := json.RawMessage(stripFence(text))
	if err := a.outCheck.validate(a.cfg.Name, "output", raw); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, &ValidationError{Agent: a.cfg.Name, What: "output", Issues: []Issue{{Rule: "not valid JSON: " + err.Error()}}, kind: ErrInvalidOutput}
	}
	return buf.Bytes(), nil
}

// stripFence removes a Markdown code fence around JSON, which some models
// add even when asked for JSON only.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
}

func repairPrompt(ve *ValidationError) string {
	issues := make([]string, len(ve.Issues))
	for i, is := range ve.Issues {
		issues[i] = is.String()
	}
	return "Your answer does not match the required JSON schema: " + strings.Join(issues, "; ") +
		". Answer again with only a JSON object that matches the schema, and nothing else."
}

// route hands off to the tool the router's model chose.
func (a *AI) route(ctx context.Context, r *Run, tt *toolTable, resp *model.Response) (json.RawMessage, error) {
	calls := resp.Message.ToolCalls()
	if len(calls) == 0 {
		text := resp.Message.Text()
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		return nil, fmt.Errorf("%w: router %s: the model called none of %s and answered %q", ErrNoRoute, a.cfg.Name, tt.names(), text)
	}
	call := calls[0]
	if !r.emit(Event{Kind: EventToolCall, ToolCall: &call}) {
		return nil, errStopped
	}
	res, out, err := a.execTool(ctx, r, tt, call, r.emit)
	if errors.Is(err, errStopped) {
		return nil, errStopped
	}
	if isPause(err) {
		return nil, err
	}
	if !r.emit(Event{Kind: EventToolResult, ToolResult: &res}) {
		return nil, errStopped
	}
	if err != nil {
		return nil, fmt.Errorf("router %s: %w", a.cfg.Name, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("router %s: handing off to %s: %s", a.cfg.Name, call.Name, res.Content)
	}
	return out, nil
}
