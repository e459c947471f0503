package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loomwork/loom/agent"
)

// job is one child run of a fan-out.
type job struct {
	agent agent.Agent
	input json.RawMessage
}

// done is how one job ended.
type done struct {
	out     json.RawMessage
	err     error
	started bool
}

// fanMsg carries a child's event, or its end, to the run's goroutine.
type fanMsg struct {
	ev   agent.Event
	end  bool
	idx  int
	done done
}

// fanOut runs jobs as nested runs of r, at most limit at once, and returns
// how each ended, in job order. Events of the child runs are emitted from
// r's goroutine as they arrive, so the consumer sees every child's events in
// order (children interleave). Unless collect is set, the first failure
// cancels the jobs still running or waiting, and first is that job's index
// (-1 when none failed, or with collect).
// No goroutine outlives the call. It returns errStopped when the consumer
// stopped reading.
func fanOut(ctx context.Context, r *agent.Run, jobs []job, limit int, collect bool) (results []done, first int, err error) {
	results = make([]done, len(jobs))
	first = -1
	if limit <= 0 || limit > len(jobs) {
		limit = len(jobs)
	}
	if limit <= 1 {
		return fanOutInline(ctx, r, jobs, results, collect)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	msgs := make(chan fanMsg)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				msgs <- fanMsg{end: true, idx: i, done: done{err: fmt.Errorf("not started: %w", context.Cause(ctx))}}
				return
			}
			if err := ctx.Err(); err != nil {
				msgs <- fanMsg{end: true, idx: i, done: done{err: fmt.Errorf("not started: %w", context.Cause(ctx))}}
				return
			}
			d := done{started: true}
			ended := false
			for ev, e := range j.agent.Run(ctx, j.input) {
				if ev.Kind == agent.EventRunEnd && ev.ParentID == r.ID {
					d.out, d.err, ended = ev.Output, ev.Err, true
				}
				if ev.Kind != 0 {
					msgs <- fanMsg{ev: ev}
				}
				if e != nil && !ended {
					d.err = e
				}
			}
			msgs <- fanMsg{end: true, idx: i, done: d}
		})
	}
	stopped := false
	for pending := len(jobs); pending > 0; {
		m := <-msgs
		if !m.end {
			if !stopped && !r.Emit(m.ev) {
				stopped = true
				cancel()
			}
			continue
		}
		pending--
		results[m.idx] = m.done
		if m.done.err != nil && first < 0 && !collect && !stopped {
			first = m.idx
			cancel()
		}
	}
	wg.Wait()
	if stopped {
		return nil, -1, errStopped
	}
	return results, first, nil
}

// fanOutInline runs the jobs one after the other on r's goroutine.
func fanOutInline(ctx context.Context, r *agent.Run, jobs []job, results []done, collect bool) ([]done, int, error) {
	first := -1
	for i, j := range jobs {
		if first >= 0 {
			results[i] = done{err: fmt.Errorf("not started: %w", context.Canceled)}
			continue
		}
		out, err := call(ctx, r, j.agent, j.input)
		if errors.Is(err, errStopped) {
			return nil, -1, errStopped
		}
		results[i] = done{out: out, err: err, started: true}
		if err != nil && !collect {
			first = i
		}
	}
	return results, first, nil
}
