package agent

import (
	"encoding/json"
	"time"

	"github.com/loomwork/loom/model"
)

// EventKind says what an [Event] reports.
type EventKind uint8

// The event kinds.
const (
	// EventRunStart opens a run: RunID, ParentID (empty for the outermost
	// run), Agent and Input are set.
	EventRunStart EventKind = iota + 1
	// EventTextDelta carries the next piece of an AI agent's answer in Text.
	EventTextDelta
	// EventToolCall reports a tool call the model made, in ToolCall, before
	// the tool runs.
	EventToolCall
	// EventToolResult reports the result sent back to the model, in
	// ToolResult.
	EventToolResult
	// EventUsage reports the tokens of one model call in Usage.
	EventUsage
	// EventRunEnd closes a run. Output is its output, Usage the run's total
	// tokens including nested runs, Err the failure if it failed, and
	// Messages, for AI agents, the messages the run added to the
	// conversation (user input, tool calls and results, the answer).
	EventRunEnd
	// EventModelResponse reports one model call's complete answer in
	// Response, after its text deltas and usage. A resumed run answers the
	// same call from this record instead of calling the model again.
	EventModelResponse
	// EventInterrupt reports a question the run asks and waits for, in
	// Question; see [Ask]. A run that asks ends with an [*InterruptedError].
	EventInterrupt
)

// String returns the kind's name, as "run_start".
func (k EventKind) String() string {
	switch k {
	case EventRunStart:
		return "run_start"
	case EventTextDelta:
		return "text_delta"
	case EventToolCall:
		return "tool_call"
	case EventToolResult:
		return "tool_result"
	case EventUsage:
		return "usage"
	case EventRunEnd:
		return "run_end"
	case EventModelResponse:
		return "model_response"
	case EventInterrupt:
		return "interrupt"
	}
	return "unknown"
}

// kindByName maps a kind's String form back to the kind.
func kindByName(s string) EventKind {
	for k := EventRunStart; k <= EventInterrupt; k++ {
		if k.String() == s {
			return k
		}
	}
	return 0
}

// Event is one step of a run, and a durable record of it: it has a stable
// JSON form (see [Event.MarshalJSON]), a sequence number within its run and
// a time from the run's clock. Which fields are set depends on Kind.
type Event struct {
	Kind     EventKind
	RunID    string    // the run the event belongs to
	ParentID string    // the run that started this run; empty for the outermost
	Agent    string    // the name of the agent running
	Seq      int64     // 1, 2, 3… within the run: the order of the run's own events
	Time     time.Time // when it happened, by the run's clock (agentrt.WithClock)
	// Replayed marks an event a resumed run yields again from its record
	// instead of doing the work again.
	Replayed bool

	Input      json.RawMessage   // EventRunStart
	Text       string            // EventTextDelta
	ToolCall   *model.ToolCall   // EventToolCall
	ToolResult *model.ToolResult // EventToolResult
	Usage      model.Usage       // EventUsage: one model call; EventRunEnd: the run's total
	Cost       float64           // estimated USD of Usage; 0 when the price is unknown
	Output     json.RawMessage   // EventRunEnd
	Messages   []model.Message   // EventRunEnd of an AI agent
	Err        error             // EventRunEnd of a failed run
	Parts      []model.Part      // EventRunEnd: parts of the output beyond its JSON (see agentrt.SetResultParts)
	Response   *model.Response   // EventModelResponse
	Question   *Question         // EventInterrupt
	// FinishReason is why the model stopped: on EventModelResponse, and on
	// an AI run's EventRunEnd for its last call (model.FinishLength means
	// the answer was cut at the output limit; check it with
	// FinishReason.Err).
	FinishReason model.FinishReason
}
