package agentrt

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/internal/rtlink"
	"github.com/loomwork/loom/model"
)

// Execute returns the event stream of running body as a run of a: how an
// agent type of its own implements Run (a user's agent is built with
// [agent.New] instead). It assigns the run id and parent id, counts the
// invocation against the limits on ctx, fires the hooks on ctx, emits
// EventRunStart and EventRunEnd, totals usage over nested runs, turns a
// deadline under a timeout limit into an [*agent.LimitError], and turns a
// panic in body into an error wrapping [agent.ErrPanic]. Under a resumed
// run's journal ([WithJournal]), a run that had ended is replayed from its
// record instead of running body. The tool of a guarded tool
// ([agent.GuardTool]) runs body inside the guarded tool's run.
func Execute(ctx context.Context, a agent.Agent, input json.RawMessage, body agent.Body) iter.Seq2[agent.Event, error] {
	return rt().Execute(ctx, a, input, body)
}

// Emit sends ev as an event of r (its RunID, ParentID and Agent are filled
// in when empty, with its sequence number and time) or passes on an event
// of a run nested in r. It returns false when the consumer has stopped
// reading; the body should then return [ErrStopped] promptly.
func Emit(r *agent.Run, ev agent.Event) bool { return rt().Emit(r, ev) }

// Child runs child as a nested run of r, passing its events on from this
// goroutine, and returns the child's EventRunEnd (with the error the child
// failed with in its Err, and as err): [agent.Run.Call] with the whole end
// event, for a composition that keeps a step's usage, messages or parts.
// err is [ErrStopped] when the consumer stopped reading. ctx must be
// the ctx r's body received (or derived from it).
func Child(ctx context.Context, r *agent.Run, child agent.Agent, input json.RawMessage) (agent.Event, error) {
	return rt().Child(ctx, r, child, input, nil)
}

// ChildWithHistory is [Child] handing child the earlier turns of a
// conversation as an argument: an AI agent sends them, as real user,
// assistant and tool messages, between its instructions and the input;
// the runs nested inside child do not see them.
func ChildWithHistory(ctx context.Context, r *agent.Run, child agent.Agent, input json.RawMessage, history []model.Message) (agent.Event, error) {
	return rt().ChildWithHistory(ctx, r, child, input, history)
}

// History returns the earlier turns of a conversation handed to r: by its
// parent with [ChildWithHistory], or for a root run in
// [agent.Env.History]. An AI agent sends them itself; a composite agent
// that hands the conversation to one of its children passes them on with
// ChildWithHistory(ctx, r, child, input, History(r)).
func History(r *agent.Run) []model.Message { return rt().History(r) }

// SetMessages records msgs as the messages r added to the conversation,
// reported in its EventRunEnd Messages. A composite agent that hands the
// conversation to a child sets the child's, so a session can remember the
// turn.
func SetMessages(r *agent.Run, msgs []model.Message) { rt().SetMessages(r, msgs) }

// Parent returns the run that started r, or nil for a root run.
func Parent(r *agent.Run) *agent.Run { return rt().Parent(r) }

// State returns r's explicit state, as its agent set it with [SetState]
// (an [agent.AIState] for an AI run), or nil.
func State(r *agent.Run) any { return rt().State(r) }

// SetState sets r's explicit state: the progress of its agent that a
// hook, a nested step or a viewer may read.
func SetState(r *agent.Run, s any) { rt().SetState(r, s) }

// SetResultParts sets parts of r's result beyond its JSON output: text,
// images or audio ([model.Text], [model.Image], [model.Audio]). When the
// run is a tool call, they reach the model with the tool's result, on
// each provider's wire where it takes them and described in text where it
// does not.
func SetResultParts(r *agent.Run, parts ...model.Part) { rt().SetResultParts(r, parts) }

// ErrStopped ends a run whose consumer stopped reading the stream. A body
// that sees it (from [agent.Run.Call], [Child], [Fan], or [Emit] returning
// false) returns it promptly; it is never yielded, so a program that
// reads a run's stream never sees it.
var ErrStopped = rtlink.ErrStopped
