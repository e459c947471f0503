package provider

import (
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestErrorResultsAreWrappedOnce(t *testing.T) {
	agentErr := model.ToolResult{CallID: "c", Name: "f", Content: json.RawMessage(`{"error":"boom"}`), IsError: true}
	require.Equal(t, `{"error":"boom"}`, ResultText(agentErr))
	require.Equal(t, map[string]any{"error": "boom"}, ResultValue(agentErr))
	plain := model.ToolResult{CallID: "c", Name: "f", Content: json.RawMessage(`"boom"`), IsError: true}
	require.Equal(t, `{"error":"boom"}`, ResultText(plain))
	require.Equal(t, map[string]any{"error": "boom"}, ResultValue(plain))
}
