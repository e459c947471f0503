package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/loomwork/loom/model"
)

// Turn is one exchange of a conversation: the user's input and everything
// the agent added in answer, as real messages (user text, assistant tool
// calls, tool results, the assistant's answer).
type Turn struct {
	Messages []model.Message
	// RunID is the run that made the turn, when a [Session] recorded it.
	// loom's memories keep a run's turn once: adding a turn whose RunID
	// they already hold does nothing, so recording a turn again after a
	// crash cannot duplicate it.
	RunID string
}

// Memory keeps a conversation's turns for a [Session]. Before each turn the
// session sends the turns Messages returns to the model as earlier user,
// assistant and tool messages (never folded into the system prompt); after
// a successful turn it adds the turn. Implementations must be safe for
// concurrent use. A persistent or vector-backed store implements the same
// interface.
type Memory interface {
	// Messages returns the earlier turns to send before input, the coming
	// turn's input, oldest first. A retrieval-backed memory chooses by
	// input; the others ignore it.
	Messages(ctx context.Context, input json.RawMessage) ([]model.Message, error)
	// Add records a finished turn. A turn whose RunID is set and already
	// recorded should be ignored: a session records a turn again when it
	// cannot tell whether an earlier attempt (in a process that died)
	// recorded it.
	Add(ctx context.Context, turn Turn) error
	// Clear forgets every turn.
	Clear(ctx context.Context) error
}

// Buffer is a [Memory] that keeps every turn. It keeps the messages in one
// flat slice and hands out a read-only view of it, so a long conversation
// costs one copy of its history per turn (the request's), not several.
type Buffer struct {
	mu    sync.Mutex
	msgs  []model.Message
	turns []int    // where each turn starts in msgs
	runs  []string // each turn's RunID
}

// NewBuffer returns an empty buffer.
func NewBuffer() *Buffer { return &Buffer{} }

// Messages returns every turn's messages, oldest first. The slice is
// shared with the buffer and capped at its length: read it, do not write
// to its elements.
func (b *Buffer) Messages(context.Context, json.RawMessage) ([]model.Message, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.msgs[:len(b.msgs):len(b.msgs)], nil
}

// Add appends turn, unless a turn of the same run is kept.
func (b *Buffer) Add(_ context.Context, turn Turn) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if turn.RunID != "" && slices.Contains(b.runs, turn.RunID) {
		return nil
	}
	b.runs = append(b.runs, turn.RunID)
	b.turns = append(b.turns, len(b.msgs))
	b.msgs = append(b.msgs, turn.Messages...)
	return nil
}

// Clear forgets every turn.
func (b *Buffer) Clear(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.msgs, b.turns, b.runs = nil, nil, nil
	return nil
}

// Turns returns a copy of the turns kept.
func (b *Buffer) Turns() []Turn {
	b.mu.Lock()
	defer b.mu.Unlock()
	turns := make([]Turn, len(b.turns))
	for i, start := range b.turns {
		end := len(b.msgs)
		if i+1 < len(b.turns) {
			end = b.turns[i+1]
		}
		turns[i] = Turn{Messages: slices.Clone(b.msgs[start:end]), RunID: b.runs[i]}
	}
	return turns
}

// DefaultWindowTurns is how many turns a [Window] keeps when its config
// does not say.
const DefaultWindowTurns = 10

// WindowConfig configures a [Window].
type WindowConfig struct {
	// MaxTurns is how many of the latest turns are kept; 0 means
	// [DefaultWindowTurns].
	MaxTurns int
	// MaxTokens, when positive, is the budget for the turns sent: the
	// oldest turns are left out until the estimate fits.
	MaxTokens int
	// Estimate counts a turn's tokens; nil uses [EstimateTokens]. Pass a
	// real tokenizer's count for exact budgets.
	Estimate func([]model.Message) int
}

// Window is a [Memory] that keeps the last MaxTurns turns and sends the
// most recent of them that fit in MaxTokens. Turns are kept or dropped
// whole, so a tool call never loses its result; a single turn larger than
// the budget is not sent.
type Window struct {
	cfg   WindowConfig
	mu    sync.Mutex
	turns []windowTurn
}

type windowTurn struct {
	Turn
	tokens int
}

// NewWindow checks cfg and returns an empty window.
func NewWindow(cfg WindowConfig) (*Window, error) {
	switch {
	case cfg.MaxTurns < 0:
		return nil, fmt.Errorf("engine: window memory: MaxTurns is %d; use 0 for the default (%d turns) or a positive number", cfg.MaxTurns, DefaultWindowTurns)
	case cfg.MaxTurns == 0:
		cfg.MaxTurns = DefaultWindowTurns
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("engine: window memory: MaxTokens is %d; use 0 for no token budget or a positive number", cfg.MaxTokens)
	}
	if cfg.Estimate == nil {
		cfg.Estimate = EstimateTokens
	}
	return &Window{cfg: cfg}, nil
}

// Messages returns the newest kept turns that fit in the token budget,
// oldest first.
func (w *Window) Messages(context.Context, json.RawMessage) ([]model.Message, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	first := len(w.turns)
	total := 0
	for i := len(w.turns) - 1; i >= 0; i-- {
		total += w.turns[i].tokens
		if w.cfg.MaxTokens > 0 && total > w.cfg.MaxTokens {
			break
		}
		first = i
	}
	var msgs []model.Message
	for _, t := range w.turns[first:] {
		msgs = append(msgs, t.Messages...)
	}
	return msgs, nil
}

// Add records turn, dropping the oldest turn beyond MaxTurns, unless a
// turn of the same run is kept.
func (w *Window) Add(_ context.Context, turn Turn) error {
	t := windowTurn{Turn: cloneTurn(turn), tokens: w.cfg.Estimate(turn.Messages)}
	w.mu.Lock()
	defer w.mu.Unlock()
	if turn.RunID != "" && slices.ContainsFunc(w.turns, func(k windowTurn) bool { return k.RunID == turn.RunID }) {
		return nil
	}
	w.turns = append(w.turns, t)
	if n := len(w.turns) - w.cfg.MaxTurns; n > 0 {
		w.turns = slices.Delete(w.turns, 0, n)
	}
	return nil
}

// Clear forgets every turn.
func (w *Window) Clear(context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.turns = nil
	return nil
}

// Turns returns a copy of the turns kept (all of them, whether or not they
// fit the token budget).
func (w *Window) Turns() []Turn {
	w.mu.Lock()
	defer w.mu.Unlock()
	ts := make([]Turn, len(w.turns))
	for i, t := range w.turns {
		ts[i] = t.Turn
	}
	return ts
}

// EstimateTokens estimates the tokens msgs take in a request, without a
// tokenizer: one token per 4 bytes of text (OpenAI's rule of thumb for
// English; code and other languages run denser, so it tends to
// underestimate them), rounded up per part, plus 4 tokens per message for
// the role and framing. A tool call counts its name and arguments, a tool
// result its content, and an image a flat 85 tokens (a low-detail image on
// OpenAI). Use it for budgets, not billing.
func EstimateTokens(msgs []model.Message) int {
	n := 0
	for _, m := range msgs {
		n += 4
		for _, p := range m.Parts {
			switch p := p.(type) {
			case model.Text:
				n += perFour(len(p.Text))
			case model.ToolCall:
				n += perFour(len(p.Name) + len(p.Arguments) + len(p.ID))
			case model.ToolResult:
				n += perFour(len(p.Content) + len(p.CallID))
			case model.Image:
				n += 85
			}
		}
	}
	return n
}

func perFour(bytes int) int { return (bytes + 3) / 4 }

func flatten(turns []Turn) []model.Message {
	var msgs []model.Message
	for _, t := range turns {
		msgs = append(msgs, t.Messages...)
	}
	return msgs
}

func cloneTurn(t Turn) Turn { return Turn{Messages: slices.Clone(t.Messages), RunID: t.RunID} }
