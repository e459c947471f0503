package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlaygroundApprovesAChatTurn: a chat's turn that loom run --chat left
// waiting for an approval is listed by the playground and approved from
// the page: it runs once, through its session, so the conversation
// reopened with --session holds the turn once.
func TestPlaygroundApprovesAChatTurn(t *testing.T) {
	c := newConversation(t)
	file, db := servedProject(t, coderYAML)

	code, stdout, stderr := loomProcessIn(t, "hello\nCalculate 15!\n", "run", file, "--chat", "--session", "pg1", "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	turn := lines[len(lines)-1]

	api, _ := servePlayground(t, file, db)
	var list []playgroundRun
	require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs", "", &list))
	require.Len(t, list, 2, "the chat's two turns")
	require.Equal(t, "done", list[0].Status)
	require.Equal(t, turn, list[1].ID)
	require.Equal(t, "waiting", list[1].Status)
	answer, _ := json.Marshal(map[string]any{list[1].Pending[0].ID: map[string]any{"approved": true}})
	require.Equal(t, http.StatusAccepted, apiCall(t, api, "POST", "runs/"+turn+"/answers", string(answer), nil))
	v := waitStatus(t, api, turn)
	require.Equal(t, "done", v.Status, v.Error)
	require.Contains(t, string(v.Output), "ran; user messages: 2", "the model saw the earlier turn")

	c.requireApprovedOnce(t, file, "pg1", db)
}
