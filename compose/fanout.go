package compose

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
)

// job is one child run of a fan-out.
type job = agentrt.Job

// done is how one job ended.
type done struct {
	out     json.RawMessage
	err     error
	started bool
}

// fanOut runs jobs through [agentrt.Fan] and returns how each ended, in
// job order. Unless collect is set, first is the index of the job whose
// failure cancelled the others (-1 when none failed). Jobs that ask
// questions are collected into one [*agent.InterruptedError], returned as
// err.
func fanOut(ctx context.Context, r *agent.Run, jobs []job, limit int, collect bool) (results []done, first int, err error) {
	outs, err := agentrt.Fan(ctx, r, jobs, agentrt.FanOptions{Limit: limit, Collect: collect})
	if err != nil {
		return nil, -1, err
	}
	results = make([]done, len(outs))
	errs := make([]error, len(outs))
	for i, o := range outs {
		results[i] = done{out: o.End.Output, err: o.Err, started: o.Started}
		errs[i] = o.Err
	}
	if ie := agentrt.Interrupts(errs...); ie != nil {
		return nil, -1, ie
	}
	first = -1
	if collect {
		return results, first, nil
	}
	for i, d := range results {
		if d.err == nil || !d.started {
			continue
		}
		if first < 0 || (errors.Is(results[first].err, context.Canceled) && !errors.Is(d.err, context.Canceled)) {
			first = i
		}
	}
	return results, first, nil
}
