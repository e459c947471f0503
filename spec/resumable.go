package spec

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/loomwork/loom/agent"
)

// Resumable is an agent that keeps its own checkpoints, as a graph entry
// does. A run of it that an engine recorded is continued by the engine's
// Resume like any other; ResumeRun continues it from its own checkpoints
// alone, given the id of the run that stopped, as a new run (for a run
// that no engine recorded).
type Resumable interface {
	agent.Agent
	// ResumeRun continues the stopped run runID with answers keyed by
	// question id, and yields the new run's events.
	ResumeRun(ctx context.Context, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error]
	// Pending returns the questions the stopped run runID waits for.
	Pending(ctx context.Context, runID string) ([]agent.Question, error)
}

// Resuming returns an agent whose run is g.ResumeRun(ctx, runID,
// answers), whatever its input: the continuation as an agent, so that an
// engine runs it with its limits, hooks, tracing and checkpoints.
func Resuming(g Resumable, runID string, answers map[string]json.RawMessage) agent.Agent {
	return resuming{Resumable: g, runID: runID, answers: answers}
}

type resuming struct {
	Resumable
	runID   string
	answers map[string]json.RawMessage
}

// Run continues the stopped run.
func (r resuming) Run(ctx context.Context, _ json.RawMessage) iter.Seq2[agent.Event, error] {
	return r.ResumeRun(ctx, r.runID, r.answers)
}
