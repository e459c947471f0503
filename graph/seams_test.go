package graph_test

import (
	"context"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/graph"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"sync/atomic"
	"testing"
)

func fanGraphT(t *testing.T) *graph.Compiled[st] {
	return compile(t, graph.New[st](graph.Config{Name: "traced"}).Reducer("log", graph.Append()).Reducer("count", graph.Sum()).
		Node("a", logNode("a")).Node("b", logNode("b")).Node("c", logNode("c")).
		Edge(graph.START, "a").Edge("a", "b").Edge("a", "c").Edge("b", graph.END).Edge("c", graph.END))
}

func TestSpansPerStepAndNode(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, err := fanGraphT(t).Invoke(agentrt.WithTracerProvider(context.Background(), tp), st{})
	require.NoError(t, err)
	byID := map[string]sdktrace.ReadOnlySpan{}
	count := map[string]int{}
	for _, s := range rec.Ended() {
		byID[s.SpanContext().SpanID().String()] = s
		count[s.Name()]++
	}
	require.Equal(t, map[string]int{"invoke_agent traced": 1, "invoke_agent step": 2, "invoke_agent a": 1, "invoke_agent b": 1, "invoke_agent c": 1}, count)
	for _, s := range rec.Ended() {
		switch s.Name() {
		case "invoke_agent a", "invoke_agent b", "invoke_agent c":
			require.Equal(t, "invoke_agent step", byID[s.Parent().SpanID().String()].Name(), "a node's span is a child of its step's")
		case "invoke_agent step":
			require.Equal(t, "invoke_agent traced", byID[s.Parent().SpanID().String()].Name())
		}
	}
}

// countingRunner is a task runner that counts the tasks it starts.
type countingRunner struct {
	started atomic.Int32
	inner   agentrt.TaskRunner
}

func (r *countingRunner) Go(task func()) {
	r.started.Add(1)
	r.inner.Go(task)
}

func (r *countingRunner) NewMailbox() agentrt.Mailbox { return r.inner.NewMailbox() }

// goRunner starts tasks on goroutines, as the default runner does.
type goRunner struct{}

func (goRunner) Go(task func()) { go task() }

func (goRunner) NewMailbox() agentrt.Mailbox { return make(chanBox, 16) }

type chanBox chan any

func (b chanBox) Send(m any)   { b <- m }
func (b chanBox) Receive() any { return <-b }

func TestNodesStartThroughTheTaskRunnerSeam(t *testing.T) {
	tr := &countingRunner{inner: goRunner{}}
	_, err := fanGraphT(t).Invoke(agentrt.WithTaskRunner(context.Background(), tr), st{})
	require.NoError(t, err)
	require.Equal(t, int32(2), tr.started.Load(), "b and c start through the seam; a step of one task runs inline")
}
