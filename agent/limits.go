package agent

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loomwork/loom/agent/internal/rtkey"
	"github.com/loomwork/loom/model"
)

// Limits bound a whole run tree: every agent run beneath the ctx given by
// [WithLimits] counts against them. Zero means no limit.
type Limits struct {
	// MaxInvocations caps the number of agent runs, nested ones included.
	MaxInvocations int
	// MaxTokens caps the total tokens (input plus output) of every model
	// call; it is checked before each call.
	MaxTokens int64
	// Timeout bounds the wall time, through the context deadline.
	Timeout time.Duration
}

// budget is the shared account of a run tree.
type budget struct {
	limits      Limits
	start       time.Time
	invocations atomic.Int64
	mu          sync.Mutex
	usage       model.Usage
	replayed    model.Usage // the part of usage replayed from a journal
	replayedUSD float64     // the estimated cost of replayed
}

// WithLimits returns ctx with a fresh budget under l. Runs started beneath
// it share the budget; cancel releases the timeout's timer.
func WithLimits(ctx context.Context, l Limits) (context.Context, context.CancelFunc) {
	b := &budget{limits: l, start: now(ctx)}
	ctx = context.WithValue(ctx, rtkey.Budget{}, b)
	if l.Timeout > 0 {
		return withTimeout(ctx, l.Timeout)
	}
	return context.WithCancel(ctx)
}

// budgetFrom returns the budget of ctx: the nearest WithLimits's, or that
// of the run ctx belongs to (a root run without limits keeps its own; a
// run's context answers the key with it), or nil. A run's budget is the
// one on its context when it started, so the nearest is the right one.
func budgetFrom(ctx context.Context) *budget {
	b, _ := ctx.Value(rtkey.Budget{}).(*budget)
	return b
}

// Usage returns the tokens used so far under the budget (agentrt.UsageFrom).
func (b *budget) Usage() model.Usage {
	if b == nil {
		return model.Usage{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.usage
}

func (b *budget) invoke() error {
	n := b.invocations.Add(1)
	if m := int64(b.limits.MaxInvocations); m > 0 && n > m {
		return &LimitError{Limit: LimitInvocations, Used: n, Max: m}
	}
	return nil
}

// checkTokens fails when the tokens used so far have reached the limit.
func (b *budget) checkTokens() error {
	if b.limits.MaxTokens <= 0 {
		return nil
	}
	b.mu.Lock()
	used := b.usage.Total()
	b.mu.Unlock()
	if used >= b.limits.MaxTokens {
		return &LimitError{Limit: LimitTokens, Used: used, Max: b.limits.MaxTokens}
	}
	return nil
}

func (b *budget) add(u model.Usage) {
	b.mu.Lock()
	b.usage = b.usage.Add(u)
	b.mu.Unlock()
}

// addReplay adds a replayed model call's recorded usage and cost: it
// counts towards the limits like a call made now, and is kept apart so
// that agentrt.ReplayedFrom can tell new work from replayed work.
func (b *budget) addReplay(u model.Usage, costUSD float64) {
	b.mu.Lock()
	b.usage = b.usage.Add(u)
	b.replayed = b.replayed.Add(u)
	b.replayedUSD += costUSD
	b.mu.Unlock()
}

// addReplayed adds the model calls' usage recorded in the events of a
// replayed run to the budget, as a replayed model call's is: the run tree's
// tokens are the same whether a nested run ran or was replayed.
func (b *budget) addReplayed(rec []Event) {
	if b == nil {
		return
	}
	for _, ev := range rec {
		if ev.Kind == EventUsage {
			b.addReplay(ev.Usage, ev.Cost)
		}
	}
}

// Replayed returns the tokens and estimated US dollars of the model calls
// replayed from a journal under the budget (agentrt.ReplayedFrom).
func (b *budget) Replayed() (model.Usage, float64) {
	if b == nil {
		return model.Usage{}, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.replayed, b.replayedUSD
}

// asTimeout turns a deadline error under a budget with a timeout into a
// [LimitError] naming the timeout.
func (b *budget) asTimeout(ctx context.Context, err error) error {
	if b == nil || b.limits.Timeout <= 0 || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var le *LimitError
	if errors.As(err, &le) {
		return err
	}
	return &LimitError{Limit: LimitTimeout, Used: since(ctx, b.start).Milliseconds(), Max: b.limits.Timeout.Milliseconds(), cause: err}
}
