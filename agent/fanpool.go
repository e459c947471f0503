package agent

import (
	"context"
	"sync"

	"github.com/loomwork/loom/internal/taskrun"
)

// fanPool runs a fan-out's jobs on the default task runner with no
// goroutine, context or message allocation per job. Workers start one at
// a time, each started by the one before when that one took its first job
// and another was waiting, up to the limit; each takes the next job until
// none is left. Cheap jobs so run on one or two goroutines while slow ones
// still all run at once. Jobs' events go into one queue that the run's
// goroutine empties in batches; a worker wakes it only when it waits. Jobs
// never run on the run's goroutine: it must stay free to pass on every
// job's events while others block.
type fanPool struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	runner  taskrun.Runner
	ids     []reservedID
	limit   int
	collect bool
	task    func(ctx context.Context, i int, emit func(Event) bool) error
	skipped func(i int, cause error)
	emitFn  func(Event) bool // p.emit, made once

	mu      sync.Mutex
	next    int     // the next job to take
	workers int     // workers started and not ended
	queue   []Event // events queued since the run's goroutine last caught up
	read    int     // how many of queue it has taken
	waiting bool    // the run's goroutine waits for wake
	wake    chan struct{}
}

// fanPooled runs the tasks of [Run.fan] with a [fanPool].
func (r *Run) fanPooled(ctx context.Context, ids []reservedID, limit int, collect bool, task func(ctx context.Context, i int, emit func(Event) bool) error, skipped func(i int, cause error)) error {
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &fanPool{ctx: fctx, cancel: cancel, runner: taskRunner(ctx), ids: ids, limit: limit, collect: collect, task: task, skipped: skipped, wake: make(chan struct{}, 1)}
	p.queue = make([]Event, 0, 2*len(ids))
	p.emitFn = p.emit
	p.workers = 1
	p.runner.Go(p.work)
	stopped := false
	for {
		p.mu.Lock()
		for p.read == len(p.queue) && p.workers > 0 {
			p.waiting = true
			p.mu.Unlock()
			<-p.wake
			p.mu.Lock()
		}
		// A worker ends after queueing its last event, so when none is
		// left this batch holds every event still to pass on. Workers
		// append past it while it is passed on.
		batch := p.queue[p.read:]
		p.read = len(p.queue)
		done := p.workers == 0
		p.mu.Unlock()
		for _, ev := range batch {
			// A cancelled job's events still pass on; only the consumer
			// stops a run.
			if !stopped && !r.emit(ev) {
				stopped = true
				cancel(errStopped)
			}
		}
		if done {
			break
		}
		p.mu.Lock()
		if p.read == len(p.queue) {
			clear(p.queue)
			p.queue, p.read = p.queue[:0], 0
		}
		p.mu.Unlock()
	}
	if stopped {
		return errStopped
	}
	return nil
}

// work takes jobs until none is left, starting another worker when a job
// is left after its first one and the limit allows.
func (p *fanPool) work() {
	first := true
	for {
		p.mu.Lock()
		if p.next == len(p.ids) {
			p.workers--
			p.signal()
			return
		}
		i := p.next
		p.next++
		// Each worker starts at most one more, when it takes its first
		// job: a worker that never got to run starts none, so cheap jobs
		// stay on the few goroutines already running.
		more := first && p.next < len(p.ids) && p.workers < p.limit
		if more {
			p.workers++
		}
		p.mu.Unlock()
		if more {
			p.runner.Go(p.work)
		}
		if first {
			growStack() // only a worker that got a job needs the room
			first = false
		}
		if p.ctx.Err() != nil {
			p.skipped(i, context.Cause(p.ctx))
			continue
		}
		err := p.task(context.WithValue(p.ctx, reservedKey{}, p.ids[i]), i, p.emitFn)
		if !p.collect && cancels(err) {
			p.cancel(context.Canceled)
		}
	}
}

// emit queues a job's event for the run's goroutine.
func (p *fanPool) emit(ev Event) bool {
	p.mu.Lock()
	p.queue = append(p.queue, ev)
	p.signal()
	return true
}

// signal wakes the run's goroutine if it waits, and unlocks p.mu.
func (p *fanPool) signal() {
	w := p.waiting
	p.waiting = false
	p.mu.Unlock()
	if w {
		p.wake <- struct{}{}
	}
}

// workerStack is the frame that grows a worker's stack before its first
// job: room for a cheap job's call chain (an agent run, its tool, JSON
// decoding and schema checks) that still leaves the stack at 16 KiB, the
// largest size the runtime hands out from a per-processor cache; a larger
// stack is allocated from, and freed to, the shared heap for every worker.
const workerStack = 12 << 10

// growStack grows a new worker's stack to hold workerStack bytes in one
// step (to 16 KiB), while the stack is still shallow: growing it step by step deep in
// a job copies it each time and adjusts every frame, which costs cheap
// jobs about as much as the rest of the hand-off.
//
//go:noinline
func growStack() {
	var frame [workerStack]byte
	touch(frame[:])
}

//go:noinline
func touch(b []byte) {
	if len(b) > 0 && b[0] != 0 {
		b[0] = 0
	}
}
