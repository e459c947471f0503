package server

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/agent"
)

// report sends ev as the next progress notification, if the client asked
// for them and ev says something a person follows: text, tool calls and
// the ends of nested runs. A notification that cannot be sent is dropped:
// progress never fails the call.
func (c *servedCall) report(ctx context.Context, ev agent.Event) {
	if c.req.Params.GetProgressToken() == nil {
		return
	}
	var msg string
	switch ev.Kind {
	case agent.EventTextDelta:
		msg = ev.Text
	case agent.EventToolCall:
		msg = "calling " + ev.ToolCall.Name
	case agent.EventRunEnd:
		if ev.ParentID == "" {
			return
		}
		msg = ev.Agent + " done"
		if ev.Err != nil {
			msg = fmt.Sprintf("%s failed: %v", ev.Agent, ev.Err)
		}
	case agent.EventInterrupt:
		msg = "waiting for an answer (" + ev.Question.Kind + ")"
	default:
		return
	}
	c.notifyProgress(ctx, 0, 0, msg, false)
}
