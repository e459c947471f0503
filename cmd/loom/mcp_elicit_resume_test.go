package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunElicitationStopsAndResumes: without a terminal, loom run stops
// at server-everything's elicitation and prints the run id; loom resume
// --answer in another process gives the form's answer (one that misses a
// required field is refused first), which the tool gets when it is called
// again; a second answer is refused.
func TestRunElicitationStopsAndResumes(t *testing.T) {
	file, calls := elicitingProject(t)
	db := filepath.Join(t.TempDir(), "cp.db")

	code, stdout, stderr := loomProcess(t, "run", file, "-i", "Sign me up", "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	id := strings.TrimSpace(stdout)
	require.Contains(t, stderr, "The MCP tool trigger-elicitation-request asks: Please provide inputs")
	require.Contains(t, stderr, "continue it with: loom resume "+id+" --answer JSON")

	code, _, stderr = loomProcess(t, "resume", id, "--answer", `{"action":"accept","content":{"check":true}}`, "--db", db)
	require.NotEqual(t, exitOK, code, "an answer without the required name is refused")
	require.Contains(t, stderr, "name")
	require.Equal(t, int32(1), calls.Load(), "a refused answer calls nothing")

	answer := `{"action":"accept","content":{"name":"Ada Lovelace","check":true}}`
	code, stdout, stderr = loomProcess(t, "resume", id, "--answer", answer, "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "Name: Ada Lovelace")
	require.Equal(t, int32(2), calls.Load(), "the call that asked, and the one the answer went to")
	code, _, stderr = loomProcess(t, "resume", id, "--answer", answer, "--db", db)
	require.Equal(t, exitFailed, code, stderr)
	require.Contains(t, stderr, "already ended")
}
