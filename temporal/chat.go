package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
	"go.temporal.io/sdk/workflow"
)

// The names of the handlers [Chat] registers.
const (
	// MessageSignal sends a chat a user message: its argument is a string.
	MessageSignal = "loom.message"
	// EndSignal ends a chat once the messages before it are answered.
	EndSignal = "loom.end"
	// ChatQuery shows a chat: its result is a [ChatView].
	ChatQuery = "loom.chat"
)

// ChatState is a chat workflow's input: the session snapshot it continues
// from. A new chat starts from the zero value.
type ChatState struct {
	// History is the conversation so far.
	History []model.Message `json:"history,omitempty"`
	// Turns counts the turns answered, over every run of the chat.
	Turns int `json:"turns"`
	// Inbox holds messages received and not yet answered.
	Inbox []string `json:"inbox,omitempty"`
	// Ended is set when [EndSignal] arrived.
	Ended bool `json:"ended,omitempty"`
}

// ChatOptions tune a [Chat].
type ChatOptions struct {
	// TurnsPerRun, when positive, continues the chat as new after that many
	// turns in one run, besides when Temporal suggests it (the history
	// nears its size or event limit). Zero continues only when Temporal
	// suggests it; negative is an error.
	TurnsPerRun int
}

// ChatView is what [ChatQuery] returns.
type ChatView struct {
	Turns int `json:"turns"`
	// Replies are the answers of this run's turns, in order.
	Replies []string `json:"replies,omitempty"`
	// Errors are the errors of this run's failed turns, by turn number.
	Errors map[int]string `json:"errors,omitempty"`
	// Waiting reports whether the chat waits for a message.
	Waiting bool `json:"waiting"`
}

// Chat runs a long conversation with a as the workflow code of wctx: each
// [MessageSignal] is one turn, a run of a with the conversation so far as
// its history (agent.Env.History). When Temporal suggests it (or after
// opts.TurnsPerRun turns), the chat continues as new with the session
// snapshot, so its history stays small; the workflow must be registered
// under the name it runs as. The chat ends after [EndSignal], returning its
// final state. A turn whose run fails is recorded in the view and the chat
// goes on; a turn that asks a question fails (use [Run] for approvals).
func Chat(wctx workflow.Context, a agent.Agent, st ChatState, opts ChatOptions) (ChatState, error) {
	if opts.TurnsPerRun < 0 {
		return st, fmt.Errorf("%w: ChatOptions.TurnsPerRun is %d: use 0 to continue as new only when Temporal suggests it", agent.ErrInvalidConfig, opts.TurnsPerRun)
	}
	view := &ChatView{Turns: st.Turns}
	if err := workflow.SetQueryHandler(wctx, ChatQuery, func() (ChatView, error) { return *view, nil }); err != nil {
		return st, err
	}
	msgs := workflow.GetSignalChannel(wctx, MessageSignal)
	end := workflow.GetSignalChannel(wctx, EndSignal)
	drain := func() {
		for {
			var m string
			if !msgs.ReceiveAsync(&m) {
				break
			}
			st.Inbox = append(st.Inbox, m)
		}
		if end.ReceiveAsync(nil) {
			st.Ended = true
		}
	}
	ctx := Context(wctx)
	b, _ := bridgeFrom(ctx)
	for run := 0; ; {
		drain()
		if len(st.Inbox) == 0 {
			if st.Ended {
				return st, nil
			}
			view.Waiting = true
			sel := workflow.NewSelector(wctx)
			sel.AddReceive(msgs, func(c workflow.ReceiveChannel, _ bool) {
				var m string
				c.Receive(wctx, &m)
				st.Inbox = append(st.Inbox, m)
			})
			sel.AddReceive(end, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(wctx, nil)
				st.Ended = true
			})
			b.block(sel.Select)
			view.Waiting = false
			continue
		}
		text := st.Inbox[0]
		st.Inbox = st.Inbox[1:]
		st.Turns++
		run++
		view.Turns = st.Turns
		reply, added, err := chatTurn(agent.WithEnv(ctx, agent.Env{History: st.History}), a, text)
		if err != nil {
			if view.Errors == nil {
				view.Errors = map[int]string{}
			}
			view.Errors[st.Turns] = err.Error()
		} else {
			st.History = append(st.History, added...)
			view.Replies = append(view.Replies, reply)
		}
		if workflow.GetInfo(wctx).GetContinueAsNewSuggested() || (opts.TurnsPerRun > 0 && run >= opts.TurnsPerRun) {
			drain()
			if len(st.Inbox) == 0 && st.Ended {
				return st, nil
			}
			return st, workflow.NewContinueAsNewError(wctx, workflow.GetInfo(wctx).WorkflowType.Name, st)
		}
	}
}

// chatTurn runs one turn and returns the reply's text and the messages the
// turn adds to the conversation.
func chatTurn(ctx context.Context, a agent.Agent, text string) (string, []model.Message, error) {
	in, err := agentrt.EncodeInput(text)
	if err != nil {
		return "", nil, err
	}
	var end agent.Event
	var runErr error
	root := ""
	for ev, err := range a.Run(ctx, in) {
		if ev.Kind == agent.EventRunStart && root == "" {
			root = ev.RunID
		}
		if ev.Kind == agent.EventRunEnd && ev.RunID == root {
			end, runErr = ev, err
		}
	}
	if runErr != nil {
		if errors.Is(runErr, agent.ErrInterrupted) {
			return "", nil, fmt.Errorf("a chat turn cannot wait for answers; run agents that ask with temporal.Run: %w", runErr)
		}
		return "", nil, runErr
	}
	var out map[string]any
	reply := string(end.Output)
	if json.Unmarshal(end.Output, &out) == nil {
		if s, ok := out[agent.DefaultTextKey].(string); ok {
			reply = s
		}
	}
	added := end.Messages
	if len(added) == 0 {
		added = []model.Message{model.UserMessage(text), model.AssistantMessage(reply)}
	}
	return reply, added, nil
}
