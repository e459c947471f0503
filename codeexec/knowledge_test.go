package codeexec_test

import (
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/vector"
	"github.com/stretchr/testify/require"
)

// TestKnowledgeRecallsEarlierSnippets: a snippet that answered one task is
// kept, and offered to the coder for a similar task later.
func TestKnowledgeRecallsEarlierSnippets(t *testing.T) {
	emb, err := vector.NewHashEmbedder(0)
	require.NoError(t, err)
	store, err := vector.NewMemory(vector.MemoryConfig{Embedder: emb})
	require.NoError(t, err)
	inproc, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	defer inproc.Close()
	code := "let f = 1; for (let i = 2; i <= 15; i++) f *= i; f"
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", mustJSON(map[string]string{"code": "syntax error ("}))),
		modeltest.ToolCalls(modeltest.Call("c2", "evaluateJs", mustJSON(map[string]string{"code": code}))),
		modeltest.Text("15! = 1307674368000"),
		modeltest.Text("16! = 20922789888000"),
	)
	ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: inproc, Knowledge: store})
	require.NoError(t, err)
	e := engine.New(engine.Config{})
	_, err = e.Invoke(t.Context(), ce, "Calculate the factorial of 15")
	require.NoError(t, err)
	require.NotContains(t, m.Request(0).Messages[len(m.Request(0).Messages)-1].Text(), "Snippets that worked", "nothing kept yet")

	res, err := store.Search(t.Context(), vector.Query{Text: "factorial of 15", Filter: vector.Eq("kind", codeexec.SnippetKind)})
	require.NoError(t, err)
	require.Len(t, res, 1, "only the snippet that ran without error is kept")
	require.Equal(t, code, res[0].Metadata["code"])

	_, err = e.Invoke(t.Context(), ce, "Calculate the factorial of 16")
	require.NoError(t, err)
	first := m.Request(3)
	var user model.Message
	for _, msg := range first.Messages {
		if msg.Role == model.RoleUser {
			user = msg
		}
	}
	require.True(t, strings.HasPrefix(user.Text(), "Calculate the factorial of 16"))
	require.Contains(t, user.Text(), "Snippets that worked for similar tasks before")
	require.Contains(t, user.Text(), code)
	_, err = codeexec.New(codeexec.Config{Tool: (&fakeSandbox{}).agentTB(t), Recall: -1})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}
