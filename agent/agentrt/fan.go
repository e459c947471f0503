package agentrt

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent"
)

// Job is one task of a fan-out: an agent run on an input.
type Job struct {
	Agent agent.Agent
	Input json.RawMessage
}

// Outcome is how one job of a fan-out ended.
type Outcome struct {
	// End is the job's EventRunEnd (zero when it did not start).
	End agent.Event
	// Err is the job's failure: its run's error, or why it did not start.
	Err error
	// Started reports whether the job's run started.
	Started bool
}

// FanOptions configure [Fan].
type FanOptions struct {
	// Limit is how many jobs run at once; zero or negative runs them all at
	// once.
	Limit int
	// Collect keeps the other jobs running when one fails; by default the
	// first failure cancels the jobs still running or waiting. A job that
	// asks a question ([agent.Ask]) never cancels the others, so that every
	// question of a fan-out is collected into one pause.
	Collect bool
}

// Fan runs jobs as nested runs of r, concurrently through the task runner
// on ctx ([WithTaskRunner]), and returns how each ended, in job order.
// Child run ids are reserved in job order, so they do not depend on which
// job starts first. Events of the jobs are emitted from r's goroutine as
// they arrive. No task outlives the call. err is [ErrStopped] when
// the consumer stopped reading.
func Fan(ctx context.Context, r *agent.Run, jobs []Job, opt FanOptions) ([]Outcome, error) {
	outs := make([]Outcome, len(jobs))
	err := rt().Fan(ctx, r, len(jobs), opt.Limit, opt.Collect, func(ctx context.Context, i int, emit func(agent.Event) bool) error {
		end, err := rt().Child(ctx, r, jobs[i].Agent, jobs[i].Input, emit)
		outs[i] = Outcome{End: end, Err: err, Started: true}
		return err
	}, func(i int, cause error) {
		outs[i] = Outcome{Err: fmt.Errorf("not started: %w", cause)}
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}
