package agent

import (
	"encoding/json"

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
	}
	return "unknown"
}

// Event is one step of a run. Which fields are set depends on Kind.
type Event struct {
	Kind     EventKind
	RunID    string // the run the event belongs to
	ParentID string // the run that started this run; empty for the outermost
	Agent    string // the name of the agent running

	Input      json.RawMessage   // EventRunStart
	Text       string            // EventTextDelta
	ToolCall   *model.ToolCall   // EventToolCall
	ToolResult *model.ToolResult // EventToolResult
	Usage      model.Usage       // EventUsage: one model call; EventRunEnd: the run's total
	Cost       float64           // estimated USD of Usage; 0 when the price is unknown
	Output     json.RawMessage   // EventRunEnd
	Messages   []model.Message   // EventRunEnd of an AI agent
	Err        error             // EventRunEnd of a failed run
	// FinishReason is, on EventRunEnd of an AI run, why the model stopped
	// its last answer; model.FinishLength means the answer was cut at the
	// output token limit (check it with FinishReason.Err).
	FinishReason model.FinishReason
}
