package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/internal/taskrun"
)

// Job is one task of a fan-out: an agent run on an input.
type Job struct {
	Agent Agent
	Input json.RawMessage
}

// Outcome is how one job of a fan-out ended.
type Outcome struct {
	// End is the job's EventRunEnd (zero when it did not start).
	End Event
	// Err is the job's failure: its run's error, or why it did not start.
	Err error
	// Started reports whether the job's run started.
	Started bool
}

// FanOptions configure [Run.Fan].
type FanOptions struct {
	// Limit is how many jobs run at once; zero or negative runs them all at
	// once.
	Limit int
	// Collect keeps the other jobs running when one fails; by default the
	// first failure cancels the jobs still running or waiting. A job that
	// asks a question ([Ask]) never cancels the others, so that every
	// question of a fan-out is collected into one pause.
	Collect bool
}

// Fan runs jobs as nested runs of r, concurrently through the task runner
// on ctx (agentrt.WithTaskRunner), and returns how each ended, in job order.
// Child run ids are reserved in job order, so they do not depend on which
// job starts first. Events of the jobs are emitted from r's goroutine as
// they arrive. No task outlives the call. err is [ErrStopped] when the
// consumer stopped reading.
func (r *Run) Fan(ctx context.Context, jobs []Job, opt FanOptions) ([]Outcome, error) {
	outs := make([]Outcome, len(jobs))
	err := r.fan(ctx, len(jobs), opt, func(ctx context.Context, i int, emit func(Event) bool) error {
		end, err := r.child(ctx, jobs[i].Agent, jobs[i].Input, emit)
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

// fanMsg carries a task's event, or its end, to the run's goroutine.
type fanMsg struct {
	ev  Event
	end bool
	idx int
	err error
}

// fan runs n tasks as Fan does. task does job i, passing its events to emit,
// and returns its failure; skipped records a job that never started (it may
// be called on a task's goroutine, for a job no other call touches). With a
// single task, or a limit of one, the tasks run one after the other on r's
// goroutine.
func (r *Run) fan(ctx context.Context, n int, opt FanOptions, task func(ctx context.Context, i int, emit func(Event) bool) error, skipped func(i int, cause error)) error {
	limit := opt.Limit
	if limit <= 0 || limit > n {
		limit = n
	}
	ids := make([]reservedID, n)
	for i := range ids {
		ids[i] = reservedID{parent: r, id: r.nextChildID()}
	}
	if limit <= 1 {
		var failed error
		for i := range n {
			if failed != nil {
				skipped(i, context.Canceled)
				continue
			}
			err := task(context.WithValue(ctx, reservedKey{}, ids[i]), i, r.Emit)
			if errors.Is(err, ErrStopped) || r.stopped {
				return ErrStopped
			}
			if err != nil && !opt.Collect && !errors.Is(err, ErrInterrupted) {
				failed = err
			}
		}
		return nil
	}
	runner := taskRunner(ctx)
	if _, ok := runner.(taskrun.GoRunner); ok {
		return r.fanPooled(ctx, ids, limit, opt.Collect, task, skipped)
	}
	return r.fanMailbox(ctx, runner, ids, limit, opt.Collect, task, skipped)
}

// cancels reports whether a job that failed with err cancels the rest of a
// fan-out that does not collect its failures.
func cancels(err error) bool {
	return err != nil && !errors.Is(err, ErrInterrupted) && !errors.Is(err, ErrStopped)
}

// fanMailbox runs the tasks through a task runner supplied on ctx: one
// task started by the runner per job, and every event and end sent through
// the runner's mailbox, so that a durable engine schedules each job.
func (r *Run) fanMailbox(ctx context.Context, runner taskrun.Runner, ids []reservedID, limit int, collect bool, task func(ctx context.Context, i int, emit func(Event) bool) error, skipped func(i int, cause error)) error {
	n := len(ids)
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	box := runner.NewMailbox()
	next, pending := 0, n
	// start starts the next job or, once the fan-out is cancelled, records
	// every job not started yet as skipped, on this goroutine: the mailbox
	// carries only the running jobs' messages.
	start := func() {
		if fctx.Err() != nil {
			for ; next < n; next++ {
				skipped(next, context.Cause(fctx))
				pending--
			}
			return
		}
		i := next
		next++
		jctx, jcancel := context.WithCancelCause(context.WithValue(fctx, reservedKey{}, ids[i]))
		runner.Go(func() {
			defer jcancel(nil)
			// The run's goroutine receives every message until all tasks
			// end, so a send never blocks for good; a cancelled job's
			// events still reach it, and only the consumer stops a run.
			emit := func(ev Event) bool {
				box.Send(fanMsg{ev: ev})
				return true
			}
			err := task(jctx, i, emit)
			box.Send(fanMsg{end: true, idx: i, err: err})
		})
	}
	for range limit {
		start()
	}
	stopped := false
	for pending > 0 {
		m := box.Receive().(fanMsg)
		if !m.end {
			if !stopped && !r.Emit(m.ev) {
				stopped = true
				cancel(ErrStopped)
			}
			continue
		}
		pending--
		if !collect && !stopped && cancels(m.err) {
			cancel(context.Canceled)
		}
		if next < n {
			start()
		}
	}
	if stopped {
		return ErrStopped
	}
	return nil
}
