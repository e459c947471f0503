package agent

import (
	"context"
	"encoding/json"

	"github.com/loomwork/loom/model"
)

// handedHistory is a conversation handed from a run to its child.
type handedHistory struct {
	set  bool
	msgs []model.Message
}

// childWithHistory runs child as a nested run of r handing it the earlier
// turns of a conversation as an argument (agentrt.ChildWithHistory).
func (r *Run) childWithHistory(ctx context.Context, child Agent, input json.RawMessage, history []model.Message) (Event, error) {
	r.handOn = handedHistory{set: true, msgs: history}
	defer func() { r.handOn = handedHistory{} }()
	return r.child(ctx, child, input, r.emit)
}
