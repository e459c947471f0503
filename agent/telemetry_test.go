package agent_test

import (
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestTelemetryCanBeSwitchedOff(t *testing.T) {
	for _, on := range []bool{true, false} {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)), modeltest.Text("3"))
		a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}})
		ctx := agentrt.WithTelemetry(agentrt.WithTracerProvider(t.Context(), tp), on)
		_, err := agent.Invoke(ctx, a, "1+2")
		require.NoError(t, err)
		if on {
			require.NotEmpty(t, rec.Ended())
		} else {
			require.Empty(t, rec.Ended(), "no spans while telemetry is off, as during a replay")
		}
	}
}
