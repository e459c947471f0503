// Package taskrun is the task-runner seam: the one place where a run's
// concurrent tasks start and report back. Package agent/agentrt publishes its
// types as agentrt.TaskRunner and agentrt.Mailbox and sets the runner with
// agentrt.WithTaskRunner; run-path code outside agent (the evaluateJs
// tool's code mode) reaches the runner through [From], so that a durable
// engine that supplies its own runner schedules that code's tasks too.
// internal/seamcheck allows a go statement in this file only.
package taskrun

import "context"

// Runner starts the concurrent tasks of a run (parallel tool calls,
// parallel steps, map items, graph nodes, the code of a code-mode
// snippet) and gives them a mailbox to report to the run's goroutine. Go
// must run task exactly once, on some goroutine, and return without
// waiting for it. A durable engine supplies its own (Temporal's
// workflow.Go and a queue it can await); the default uses a go statement
// and a channel.
type Runner interface {
	Go(task func())
	// NewMailbox returns a mailbox for a fan-out's messages.
	NewMailbox() Mailbox
}

// Mailbox carries a fan-out's messages from its tasks to the run's
// goroutine. Send never blocks for good: the run's goroutine receives every
// message until all tasks ended.
type Mailbox interface {
	Send(msg any)
	// Receive blocks until a message arrives.
	Receive() any
}

type runnerKey struct{}

// With returns ctx whose runs start their tasks through r.
func With(ctx context.Context, r Runner) context.Context {
	return context.WithValue(ctx, runnerKey{}, r)
}

// From returns the runner on ctx ([With]), or the default: a go statement
// per task and a buffered channel per mailbox.
func From(ctx context.Context) Runner {
	if r, ok := ctx.Value(runnerKey{}).(Runner); ok && r != nil {
		return r
	}
	return GoRunner{}
}

// GoRunner is the default [Runner]: each task on a goroutine of its own.
type GoRunner struct{}

// Go runs task on a new goroutine.
func (GoRunner) Go(task func()) { go task() }

// NewMailbox returns a channel with room for 16 messages.
func (GoRunner) NewMailbox() Mailbox { return chanMailbox(make(chan any, 16)) }

// chanMailbox is the default mailbox, a buffered channel.
type chanMailbox chan any

func (m chanMailbox) Send(msg any) { m <- msg }
func (m chanMailbox) Receive() any { return <-m }
