// Package yamlgraph tests the release-notes graph declared in loom.yaml, run
// by the loom command against a local OpenAI-format server.
package yamlgraph

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var loom string

// TestMain builds the loom command for the tests.
func TestMain(m *testing.M) {
	os.Exit(exampletest.MainOf(m, "../../cmd/loom", &loom))
}

// team plays both models: the writer numbers its drafts; the reviewer
// sends the first draft back and approves the next.
func team() func(fakeopenai.Request) fakeopenai.Reply {
	var drafts, reviews atomic.Int32
	return func(req fakeopenai.Request) fakeopenai.Reply {
		if strings.Contains(req.Messages[0].Content, "You review release notes") {
			if reviews.Add(1) == 1 {
				return fakeopenai.Reply{Text: `{"approved":false,"feedback":"say why it matters"}`}
			}
			return fakeopenai.Reply{Text: `{"approved":true,"feedback":""}`}
		}
		n := drafts.Add(1)
		return fakeopenai.Reply{Text: "Draft " + strconv.Itoa(int(n)) + ": exports are faster."}
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

func TestGraphStopsForApprovalAndResumes(t *testing.T) {
	srv := fakeopenai.New(t, team())
	dir := t.TempDir()
	env := append(exampletest.OpenAIEnv(srv.BaseURL()), "LOOM_CHECKPOINT_DB="+filepath.Join(dir, "cp.db"))
	res := exampletest.RunIn(t, dir, loom, env, "", "run", file(t), "-i", "Exports now stream instead of loading all rows.")
	require.Equal(t, 3, res.Code, "no terminal: the run stops at the approval; stderr: %s", res.Stderr)
	id := strings.TrimSpace(res.Stdout)
	require.Contains(t, res.Stderr, "waits for approval "+id+".1.5.1?1:\nPublish these release notes?\n  draft: Draft 2: exports are faster.\n", "the approval shows the reviewed draft")

	reqs := srv.Requests()
	require.Len(t, reqs, 4, "writer, reviewer, writer again, reviewer")
	require.Contains(t, reqs[2].Last().Content, "Feedback: say why it matters", "the review went back to the writer")
	require.Equal(t, "json_schema", reqs[1].Body["response_format"].(map[string]any)["type"])

	// Another process resumes from the checkpoint: no model is called again.
	res = exampletest.RunIn(t, dir, loom, env, "", "resume", id, "--approve")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	var state map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &state), res.Stdout)
	require.JSONEq(t, `{"message":"Draft 2: exports are faster."}`, string(state["draft"]))
	require.JSONEq(t, `{"approved":true}`, string(state["approve"]))
	require.Len(t, srv.Requests(), 4)

	// The run that stopped is the run that ended, and it resumes once.
	st, err := sqlite.Open(t.Context(), sqlite.Config{Path: filepath.Join(dir, "cp.db")})
	require.NoError(t, err)
	defer st.Close()
	cps, err := st.List(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, engine.CheckpointEnd, cps[len(cps)-1].Kind)
	res = exampletest.RunIn(t, dir, loom, env, "", "resume", id, "--approve")
	require.NotEqual(t, 0, res.Code)
	require.Contains(t, res.Stderr, "nothing to resume")
}
