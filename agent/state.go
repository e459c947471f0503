package agent

import "github.com/loomwork/loom/model"

// AIState is an AI run's progress, its state
// ([github.com/loomwork/loom/agent/agentrt.State]): everything the loop
// knows between two steps, as a serialisable value.
type AIState struct {
	// Messages is the conversation so far: instructions, history, input,
	// and every answer and tool result of the run.
	Messages []model.Message `json:"messages"`
	// Turn is the number of model calls made.
	Turn int `json:"turn"`
	// Pending are the tool calls of the current turn, while they run.
	Pending []model.ToolCall `json:"pending,omitempty"`
	// Results are the last turn's tool results, once they ran.
	Results []model.ToolResult `json:"results,omitempty"`
	// Usage is the run's tokens so far, nested runs included.
	Usage model.Usage `json:"usage"`
}
