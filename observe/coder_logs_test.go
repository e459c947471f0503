package observe_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe/internal/coderrun"
	"github.com/loomwork/loom/observe/logx"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// An engine's log records of a traced run carry the run's trace and span
// ids, so a log line leads to its trace in the viewer.
func TestEngineLogsCarryTraceIDs(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	var buf bytes.Buffer
	log := slog.New(logx.NewHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: logx.LevelTrace, ReplaceAttr: logx.ReplaceLevelNames})))
	ce := coderrun.Workflow(t)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"`+factorial+`"}`)),
		modeltest.Text("15! = 1307674368000"),
	)
	eng := engine.New(engine.Config{Model: m, TracerProvider: tp, Logger: log})
	_, err := eng.Invoke(t.Context(), ce, "Calculate 15!")
	require.NoError(t, err)

	var root sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if !s.Parent().IsValid() {
			root = s
		}
	}
	require.NotNil(t, root)
	traceID := "trace_id=" + root.SpanContext().TraceID().String()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.NotEmpty(t, lines)
	var start, end, trace int
	for _, l := range lines {
		require.Contains(t, l, traceID, "every record of the run names its trace: %s", l)
		switch {
		case strings.Contains(l, `msg="run start"`):
			start++
		case strings.Contains(l, `msg="run end"`):
			end++
		case strings.Contains(l, "level=TRACE"):
			trace++
		}
	}
	require.Equal(t, 1, start)
	require.Equal(t, 1, end)
	require.Greater(t, trace, 5, "every event is logged at TRACE")
}
