package agent

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/loomwork/loom/model"
)

// OutputHold makes an AI agent hold its streamed answer back until its
// output guardrails have passed it, so that a refused answer never reaches
// the stream's consumer: no text delta and no model response of it is
// emitted, only its usage.
//
// The trade-off is latency. Without a hold, text streams as the model
// writes it and the output guardrails judge the answer after the caller
// has read it. Holding the whole answer delays its first character until
// the model has finished and every guardrail has answered. A Window
// releases text while the model writes: each time Window more characters
// have arrived, the guardrails with a Check function judge the text so
// far (GuardInput.Partial set), and all but the last Window characters are
// released; the rest, and the full answer checked by every guardrail, go
// out at the end. So the first text appears after about 2×Window
// characters, and a match no longer than Window characters is judged
// before any of it is released. Text the model writes beside tool calls
// is not an answer: it is released with the call (under a window, after
// the partial checks it met while streaming).
type OutputHold struct {
	// On holds the answer back until the output guardrails pass it.
	On bool
	// Window, when positive, releases held text in steps of Window
	// characters (see above) and implies On. Zero holds the whole answer;
	// negative is an error.
	Window int
}

func (h OutputHold) on() bool { return h.On || h.Window > 0 }

// pendingCall is a model call's answer whose events the run has not yet
// all emitted: text held back for the output guardrails, then its usage
// and its EventModelResponse.
type pendingCall struct {
	resp     *model.Response
	cost     float64
	text     strings.Builder // the answer's text so far
	held     []string        // deltas not yet released, in order
	released int             // bytes of text released
	runes    int             // characters of text
	checked  int             // characters at the last partial check
	keep     bool            // a partial check replaced: release nothing more before the end
	charged  bool            // its usage is emitted
	settled  bool            // its events are out (or were replayed)
}

// hold keeps delta back.
func (p *pendingCall) hold(delta string) {
	p.text.WriteString(delta)
	p.held = append(p.held, delta)
	p.runes += utf8.RuneCountInString(delta)
}

// release emits held text up to byte upTo of the answer, splitting a
// delta at the boundary. It returns false when the consumer stopped.
func (p *pendingCall) release(r *Run, upTo int) bool {
	for p.released < upTo && len(p.held) > 0 {
		d := p.held[0]
		if n := upTo - p.released; len(d) > n {
			if !r.emit(Event{Kind: EventTextDelta, Text: d[:n]}) {
				return false
			}
			p.held[0], p.released = d[n:], upTo
			return true
		}
		if !r.emit(Event{Kind: EventTextDelta, Text: d}) {
			return false
		}
		p.held, p.released = p.held[1:], p.released+len(d)
	}
	return true
}

// settle emits what the call still holds: its text when withText, its
// usage and its model response.
func (p *pendingCall) settle(r *Run, withText bool) error {
	if p.settled {
		return nil
	}
	p.settled = true
	if withText && !p.release(r, p.text.Len()) {
		return errStopped
	}
	if err := p.charge(r); err != nil {
		return err
	}
	if !r.emit(Event{Kind: EventModelResponse, Response: p.resp, FinishReason: p.resp.FinishReason}) {
		return errStopped
	}
	return nil
}

// charge emits the call's usage, once, so the budget counts it before the
// output guardrails run.
func (p *pendingCall) charge(r *Run) error {
	if p.charged {
		return nil
	}
	p.charged = true
	if !p.resp.Usage.IsZero() && !r.recordUsage(p.resp.Usage, p.cost) {
		return errStopped
	}
	return nil
}

// drop ends a refused call: only its usage is emitted.
func (p *pendingCall) drop(r *Run) error {
	if p.settled {
		return nil
	}
	p.settled = true
	return p.charge(r)
}

// replaceText puts the guardrails' replacement of the answer in place of
// the text still held. Text already released cannot be called back, so a
// replacement that changes it trips.
func (p *pendingCall) replaceText(text, by, agent string) error {
	done := p.text.String()[:p.released]
	if !strings.HasPrefix(text, done) {
		return &TripwireError{Guardrail: by, Stage: StageOutput, Agent: agent,
			Reason: "the replacement changes text already streamed to the caller; hold the whole answer (OutputHold.Window 0) or widen the window"}
	}
	p.text.Reset()
	p.text.WriteString(text)
	p.held = nil
	if rest := text[len(done):]; rest != "" {
		p.held = []string{rest}
	}
	return nil
}

// holdDelta holds delta back and, under a window, checks the text so far
// with the guardrails that have a Check function each time Window more
// characters arrived, releasing all but the last Window characters when
// they pass.
func (a *AI) holdDelta(ctx context.Context, r *Run, p *pendingCall, delta string) error {
	p.hold(delta)
	w := a.cfg.OutputHold.Window
	if w <= 0 || p.keep || p.runes-p.checked < w {
		return nil
	}
	p.checked = p.runes
	text := p.text.String()
	content, _ := json.Marshal(text)
	in := GuardInput{Stage: StageOutput, Agent: a.cfg.Name, Message: text, Content: content, Partial: true}
	for _, g := range a.cfg.OutputGuardrails {
		if g.Check == nil {
			continue
		}
		v, err := runGuard(ctx, r, r.emit, g, in)
		if err != nil {
			return err
		}
		switch v.Action {
		case ActionReplace:
			// The final check will replace; hold everything from here.
			p.keep = true
			return nil
		case ActionReject, ActionHalt:
			return &TripwireError{Guardrail: g.Name, Stage: StageOutput, Agent: a.cfg.Name, Reason: v.Reason}
		}
	}
	if !p.release(r, runeOffset(text, p.runes-w)) {
		return errStopped
	}
	return nil
}

// runeOffset returns the byte offset of character n of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
