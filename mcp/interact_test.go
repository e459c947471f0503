package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model/modeltest"
)

// waitForTool waits until the toolset offers name (server-everything
// registers its client-dependent tools after the session starts).
func waitForTool(t *testing.T, ts *Toolset, name string) agent.Agent {
	t.Helper()
	var found agent.Agent
	require.Eventually(t, func() bool {
		tools, err := ts.Tools(context.Background())
		if err != nil {
			return false
		}
		for _, tl := range tools {
			if tl.Info().Name == name {
				found = tl
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond)
	return found
}

func TestEverythingElicitationResumes(t *testing.T) {
	// The server's elicitation request becomes the run's question; the run
	// is checkpointed, and resuming it with the answer makes the call again
	// and gives the server that answer.
	transports(t, func(t *testing.T, cfg Config) {
		ts := connect(t, cfg)
		tl := waitForTool(t, ts, "trigger-elicitation-request")
		e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()

		_, err := e.Invoke(ctx, tl, `{}`)
		var ie *agent.InterruptedError
		require.ErrorAs(t, err, &ie)
		require.Len(t, ie.Questions, 1)
		q := ie.Questions[0]
		require.Equal(t, ElicitationKind, q.Kind)
		var p Elicitation
		require.NoError(t, json.Unmarshal(q.Payload, &p))
		require.Equal(t, "trigger-elicitation-request", p.Tool)
		require.Contains(t, p.Message, "Please provide inputs")
		require.Contains(t, string(p.Schema), `"name"`)

		answer := json.RawMessage(`{"action":"accept","content":{"name":"Ada Lovelace","check":true}}`)
		res, err := e.ResumeInvoke(ctx, tl, q.Run, map[string]json.RawMessage{q.ID: answer})
		require.NoError(t, err)
		require.Contains(t, string(res.Output), "Name: Ada Lovelace")
		require.Contains(t, string(res.Output), "Agreed to terms: true")
	})
}

func TestEverythingSampling(t *testing.T) {
	transports(t, func(t *testing.T, cfg Config) {
		m := modeltest.New(t, modeltest.Text("a haiku about gophers"))
		cfg.Sampling = m
		ts := connect(t, cfg)
		tl := waitForTool(t, ts, "trigger-sampling-request")
		_, out, err := runTool(t, tl, `{"prompt":"write a haiku","maxTokens":50}`)
		require.NoError(t, err)
		require.Contains(t, string(out), "a haiku about gophers")
		req := m.Request(0)
		require.Contains(t, req.Messages[len(req.Messages)-1].Text(), "write a haiku")
		require.Equal(t, 50, *req.Options.MaxOutputTokens)
	})
}

func TestNoSamplingUnlessConfigured(t *testing.T) {
	ts := connect(t, stdioConfig(t, ""))
	waitForTool(t, ts, "trigger-elicitation-request")
	tools, err := ts.Tools(context.Background())
	require.NoError(t, err)
	for _, tl := range tools {
		require.NotEqual(t, "trigger-sampling-request", tl.Info().Name, "the client offered sampling without a model")
	}
}
