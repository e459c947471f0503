package viewer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestViewerShowsATripwire: a run stopped by an output guardrail reaches
// the viewer's API with the guardrail's span failed, its tripwire event,
// and the run's span naming the guardrail.
func TestViewerShowsATripwire(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	deny := agent.Guardrail{Name: "no_secrets", Check: func(_ context.Context, in agent.GuardInput) (agent.Verdict, error) {
		if strings.Contains(in.Message, "password") {
			return agent.Reject("the answer shows a password"), nil
		}
		return agent.Allow(), nil
	}}
	a, err := agent.NewAI(agent.AIConfig{Name: "assistant", Model: modeltest.New(t, modeltest.Text("the password is hunter2")), OutputGuardrails: []agent.Guardrail{deny}, OutputHold: agent.OutputHold{On: true}})
	require.NoError(t, err)
	_, err = agent.Invoke(agentrt.WithTracerProvider(t.Context(), tp), a, "what is it?")
	require.ErrorIs(t, err, agent.ErrTripwire)

	s := newStore(t)
	require.NoError(t, store.NewExporter(s).ExportSpans(t.Context(), rec.Ended()))
	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	traceID := rec.Ended()[0].SpanContext().TraceID().String()
	var d traceResp
	res := get(t, srv, "/api/traces/"+traceID, &d)
	require.Equal(t, http.StatusOK, res.StatusCode)
	byName := map[string]int{}
	for i, sp := range d.Spans {
		byName[sp.Name] = i
	}
	g := d.Spans[byName["guardrail no_secrets"]]
	require.Equal(t, "error", g.Status)
	require.Equal(t, "output", g.Attributes["loom.guardrail.stage"])
	require.Equal(t, "reject", g.Attributes["loom.guardrail.action"])
	require.Len(t, g.Events, 1)
	require.Equal(t, "loom.guardrail.tripwire", g.Events[0].Name)
	root := d.Spans[byName["invoke_agent assistant"]]
	require.Equal(t, "error", root.Status)
	require.Equal(t, "no_secrets", root.Attributes["loom.tripwire.guardrail"])
	require.Equal(t, "the answer shows a password", root.Attributes["loom.tripwire.reason"])
	require.Equal(t, root.SpanID, g.ParentSpanID)
}
