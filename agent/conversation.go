package agent

import (
	"context"
	"encoding/json"

	"github.com/loomwork/loom/model"
)

// History returns the earlier turns of a conversation handed to this run:
// by its parent with [Run.ChildWithHistory], or for a root run in
// [Env.History]. An AI agent sends them itself; a composite agent that
// hands the conversation to one of its children passes them on with
// r.ChildWithHistory(ctx, child, input, r.History(ctx)).
func (r *Run) History() []model.Message { return r.history.msgs }

// handedHistory is a conversation handed from a run to its child.
type handedHistory struct {
	set  bool
	msgs []model.Message
}

// ChildWithHistory is [Run.Child] handing child the earlier turns of a
// conversation as an argument: an AI agent sends them, as real user,
// assistant and tool messages, between its instructions and the input;
// the runs nested inside child do not see them.
func (r *Run) ChildWithHistory(ctx context.Context, child Agent, input json.RawMessage, history []model.Message) (Event, error) {
	r.handOn = handedHistory{set: true, msgs: history}
	defer func() { r.handOn = handedHistory{} }()
	return r.Child(ctx, child, input)
}

// SetMessages records msgs as the messages this run added to the
// conversation, reported in its [EventRunEnd] Messages. A composite agent
// that hands the conversation to a child sets the child's, so a session
// can remember the turn.
func (r *Run) SetMessages(msgs []model.Message) { r.messages = msgs }
