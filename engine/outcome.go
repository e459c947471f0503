package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// The values of loom.workflow.outcome.
const (
	OutcomeAnswered = "answered" // the run ended with an output
	OutcomeFailed   = "failed"   // the run ended with an error
	OutcomeLimit    = "limit"    // the run breached a limit
	OutcomeWaiting  = "waiting"  // the run paused for answers (agent.Ask)
)

// OutcomeOf classifies how a run ended, as loom.workflow.outcome does. A run
// that paused for answers is "waiting", not failed: it is resumed later.
func OutcomeOf(err error) string {
	switch {
	case err == nil:
		return OutcomeAnswered
	case errors.Is(err, agent.ErrLimit):
		return OutcomeLimit
	case errors.Is(err, agent.ErrInterrupted):
		return OutcomeWaiting
	}
	return OutcomeFailed
}

// runState follows one engine run through hooks: the root run, which gets
// the outcome attribute, and the number of invocations.
type runState struct {
	engine      *Engine
	resumed     bool // the run goes on from its checkpoints
	once        sync.Once
	mu          sync.Mutex
	root        string
	rootCtx     context.Context // the root run's context, with its span
	invocations atomic.Int64
}

// logContext returns the root run's context once it has started, so log
// records carry its trace and span ids, and ctx before that.
func (s *runState) logContext(ctx context.Context) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rootCtx != nil {
		return s.rootCtx
	}
	return ctx
}

func (s *runState) hooks() agent.Hooks {
	return agent.Hooks{
		RunStart: func(ctx context.Context, e agent.HookEvent) {
			s.invocations.Add(1)
			s.once.Do(func() {
				s.mu.Lock()
				s.root, s.rootCtx = e.RunID, ctx
				s.mu.Unlock()
				if s.resumed {
					// The trace of a resumed run is another part of the
					// run whose loom.run.id it shares: the viewer shows
					// the parts as one run.
					trace.SpanFromContext(ctx).SetAttributes(attribute.Bool("loom.run.resumed", true))
				}
			})
		},
		RunEnd: func(ctx context.Context, e agent.HookEvent) {
			s.mu.Lock()
			root := s.root
			s.mu.Unlock()
			if e.RunID != root {
				return
			}
			oc := OutcomeOf(e.Err)
			attr := attribute.String("loom.workflow.outcome", oc)
			trace.SpanFromContext(ctx).SetAttributes(attr)
			if ms, ok := instrumentsFrom(ctx); ok {
				ms.outcomes.Add(ctx, 1, metric.WithAttributes(attr))
			}
		},
	}
}

// instruments are the metrics package engine owns: loom.workflow.outcomes,
// by outcome (answered, failed, limit, waiting).
type instruments struct {
	outcomes metric.Int64Counter
}

type instrumentsKey struct{}

func buildInstruments(m metric.Meter) (instruments, error) {
	c, err := m.Int64Counter("loom.workflow.outcomes", metric.WithDescription("Workflow runs by outcome: answered, failed, limit, waiting."))
	if err != nil {
		return instruments{}, fmt.Errorf("engine: create metrics: %w", err)
	}
	return instruments{outcomes: c}, nil
}

func instrumentsFrom(ctx context.Context) (instruments, bool) {
	ins, ok, _ := telemetry.Instruments(telemetry.MetersFrom(ctx), instrumentsKey{}, buildInstruments)
	return ins, ok
}
