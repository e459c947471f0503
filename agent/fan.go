package agent

import (
	"context"
	"errors"

	"github.com/loomwork/loom/internal/taskrun"
)

// fanMsg carries a task's event, or its end, to the run's goroutine.
type fanMsg struct {
	ev  Event
	end bool
	idx int
	err error
}

// fanOptions configure a fan-out: at most limit tasks at once (zero or
// negative: all), and whether a failed task leaves the others running
// (collect) or cancels them; see agentrt.FanOptions.
type fanOptions struct {
	limit   int
	collect bool
}

// fan runs n tasks as nested work of r, concurrently through the task
// runner on ctx (agentrt.WithTaskRunner), as agentrt.Fan does. task does
// job i, passing its events to emit, and returns its failure; skipped
// records a job that never started (it may be called on a task's
// goroutine, for a job no other call touches). Child run ids are reserved
// in job order. With a single task, or a limit of one, the tasks run one
// after the other on r's goroutine. err is errStopped when the consumer
// stopped reading.
func (r *Run) fan(ctx context.Context, n int, opt fanOptions, task func(ctx context.Context, i int, emit func(Event) bool) error, skipped func(i int, cause error)) error {
	limit := opt.limit
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
			err := task(context.WithValue(ctx, reservedKey{}, ids[i]), i, r.emit)
			if errors.Is(err, errStopped) || r.stopped {
				return errStopped
			}
			if err != nil && !opt.collect && !errors.Is(err, ErrInterrupted) {
				failed = err
			}
		}
		return nil
	}
	runner := taskRunner(ctx)
	if _, ok := runner.(taskrun.GoRunner); ok {
		return r.fanPooled(ctx, ids, limit, opt.collect, task, skipped)
	}
	return r.fanMailbox(ctx, runner, ids, limit, opt.collect, task, skipped)
}

// cancels reports whether a job that failed with err cancels the rest of a
// fan-out that does not collect its failures.
func cancels(err error) bool {
	return err != nil && !errors.Is(err, ErrInterrupted) && !errors.Is(err, errStopped)
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
			if !stopped && !r.emit(m.ev) {
				stopped = true
				cancel(errStopped)
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
		return errStopped
	}
	return nil
}
