package graph_test

import (
	"context"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
)

// A compiled graph is an agent: it runs as a step of a sequence, which
// passes it the sequence's input and gets its final state as the step's
// output.
func TestGraphIsAStepOfASequence(t *testing.T) {
	type in struct {
		Message string `json:"message"`
	}
	shout, err := agent.NewFunc("shout", "", func(_ context.Context, i in) (map[string]string, error) {
		return map[string]string{"topic": i.Message + "!"}, nil
	})
	require.NoError(t, err)
	g := compile(t, graph.New[st](graph.Config{Name: "g"}).Reducer("log", graph.Append()).
		Node("echo", func(_ context.Context, s st) (st, error) { s.Log = append(s.Log, "got "+s.Topic); return s, nil }).
		Edge(graph.START, "echo").Edge("echo", graph.END))
	seq, err := compose.NewSequence(compose.SequenceConfig{Name: "seq", Steps: []agent.Agent{shout, g}})
	require.NoError(t, err)
	out, err := agent.InvokeAs[st](context.Background(), seq, "hi")
	require.NoError(t, err)
	require.Equal(t, []string{"got hi!"}, out.Log)
}
