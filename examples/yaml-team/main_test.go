// Package yamlteam tests the coordinator team declared in loom.yaml, run by
// the loom command against a local OpenAI-format server.
package yamlteam

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var loom string

// TestMain builds the loom command for the tests.
func TestMain(m *testing.M) {
	os.Exit(exampletest.MainOf(m, "../../cmd/loom", &loom))
}

// team plays every model of the team: the reviewer (told by its
// instructions) approves; the coder computes with fakeopenai.Coder, except
// that with lazy it first answers without computing, until the error
// handler's correction arrives.
func team(lazy bool) func(fakeopenai.Request) fakeopenai.Reply {
	return func(req fakeopenai.Request) fakeopenai.Reply {
		if len(req.Messages) > 0 && req.Messages[0].Role == "system" && strings.Contains(req.Messages[0].Content, "You review") {
			return fakeopenai.Reply{Text: `{"approved":true,"feedback":""}`}
		}
		if lazy && req.Last().Role == "user" && !strings.Contains(req.Last().Content, "check failed") {
			return fakeopenai.Reply{Text: "I would rather not compute that."}
		}
		return fakeopenai.Coder(req)
	}
}

func file(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("loom.yaml")
	require.NoError(t, err)
	return p
}

func TestValidates(t *testing.T) {
	res := exampletest.Run(t, loom, nil, "", "validate", file(t))
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
}

func TestTeamSolves(t *testing.T) {
	srv := fakeopenai.New(t, team(false))
	dir := t.TempDir()
	env := append(exampletest.OpenAIEnv(srv.BaseURL()), "LOOM_CHECKPOINT_DB="+filepath.Join(dir, "cp.db"))
	res := exampletest.RunIn(t, dir, loom, env, "", "run", file(t), "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "15! = 1307674368000\n", res.Stdout)
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "coder, coder with the result, reviewer")
	require.Contains(t, reqs[2].Messages[0].Content, "You review a teammate's answer", "the reviewer's instructions come from prompts/reviewer.md")
	require.Equal(t, "json_schema", reqs[2].Body["response_format"].(map[string]any)["type"], "review.schema.json is sent as the output schema")
}

func TestErrorHandlerCorrectsTheCoder(t *testing.T) {
	srv := fakeopenai.New(t, team(true))
	dir := t.TempDir()
	env := append(exampletest.OpenAIEnv(srv.BaseURL()), "LOOM_CHECKPOINT_DB="+filepath.Join(dir, "cp.db"))
	res := exampletest.RunIn(t, dir, loom, env, "", "run", file(t), "-i", "Calculate 15!")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "15! = 1307674368000\n", res.Stdout)
	var corrected bool
	for _, r := range srv.Requests() {
		if strings.Contains(r.Last().Content, "The check failed: ") && strings.Contains(r.Last().Content, "the answer states no number") {
			corrected = true
		}
	}
	require.True(t, corrected, "the executor's failure reached the coder through the error handler")
}
