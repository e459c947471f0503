package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/mcp"
)

// Every question a person reads on the terminal (loom run, loom resume
// --list) shows terminal controls from a model, a snippet, an MCP server
// or a graph's state as visible text.
func TestDescribeQuestionShowsControlsAsText(t *testing.T) {
	const evil = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202e"
	payload := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	cases := []struct {
		name string
		q    agent.Question
	}{
		{"approval", agent.Question{Kind: codeexec.ApprovalKind, Payload: payload(codeexec.ApprovalRequest{Code: "1 + 1 // " + evil})}},
		{"elicitation", agent.Question{Kind: mcp.ElicitationKind, Payload: payload(map[string]any{"tool": "t" + evil, "message": "name? " + evil})}},
		{"graph prompt", agent.Question{Kind: "human", Payload: payload(map[string]any{"prompt": "ok? " + evil, "state": map[string]string{"draft": evil}})}},
		{"other", agent.Question{Kind: "input", Payload: payload(map[string]string{"x": evil})}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := describeQuestion(tc.q)
			require.NotContains(t, text, "\x1b")
			require.NotContains(t, text, "\x07")
			require.NotContains(t, text, "\u202e")
		})
	}
}
