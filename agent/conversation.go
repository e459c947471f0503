package agent

import (
	"context"

	"github.com/loomwork/loom/model"
)

// History returns the earlier turns of a conversation given with
// [WithHistory] for this run. An AI agent sends them itself; a composite
// agent that hands the conversation to one of its children passes them on
// with WithHistory(ctx, r.History(ctx)) inside its body.
func (r *Run) History(ctx context.Context) []model.Message {
	return historyFor(ctx, r.parent)
}

// SetMessages records msgs as the messages this run added to the
// conversation, reported in its [EventRunEnd] Messages. A composite agent
// that hands the conversation to a child sets the child's, so a session
// can remember the turn.
func (r *Run) SetMessages(msgs []model.Message) { r.messages = msgs }
