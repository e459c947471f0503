package temporal_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// recordSpans makes the global tracer provider record spans for the test.
func recordSpans(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prev)
		require.NoError(t, tp.Shutdown(context.Background()))
	})
	return rec
}

func TestLiveRunRecordsSpans(t *testing.T) {
	rec := recordSpans(t)
	f := newFakeOpenAI(t, callsReply(call("c1", "add", `{"a":1,"b":2}`)), textReply("3"))
	env := newEnv(t, f, nil)
	env.ExecuteWorkflow(AssistantWorkflow, "1+2?")
	require.NoError(t, env.GetWorkflowError())
	names := map[string]int{}
	for _, s := range rec.Ended() {
		names[s.Name()]++
	}
	require.Equal(t, 2, names["chat gpt-test"], "one span per model call, run live: %v", names)
	require.Equal(t, 1, names["execute_tool add"], "%v", names)
}
