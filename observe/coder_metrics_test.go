package observe_test

import (
	"context"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe/internal/coderrun"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"testing"
)

// The KPIs of a Coder→Sandbox run reach the meter: sandbox runs and
// failures by kind, their duration, tool calls with their error flag, model
// call durations and tokens, and the workflow's outcome.
func TestCoderSandboxMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	ms, err := agentrt.NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	require.NoError(t, err)
	ce := coderrun.Workflow(t)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"throw new TypeError('oops')"}`)).WithUsage(100, 10),
		modeltest.ToolCalls(modeltest.Call("c2", "evaluateJs", `{"code":"1 +"}`)).WithUsage(100, 10),
		modeltest.ToolCalls(modeltest.Call("c3", "evaluateJs", `{"code":"`+factorial+`"}`)).WithUsage(100, 10),
		modeltest.Text("15! = 1307674368000").WithUsage(100, 10),
	)
	eng := engine.New(engine.Config{Model: m, Metrics: ms})
	_, err = eng.Invoke(t.Context(), ce, "Calculate 15!")
	require.NoError(t, err)

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	data := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			data[mt.Name] = mt.Data
		}
	}
	str := func(set attribute.Set, key attribute.Key) string {
		v, _ := set.Value(key)
		return v.AsString()
	}

	runs := map[string]int64{}
	for _, dp := range data["loom.sandbox.runs"].(metricdata.Sum[int64]).DataPoints {
		require.Equal(t, "goja", str(dp.Attributes, "loom.sandbox.executor"))
		runs[str(dp.Attributes, "loom.sandbox.outcome")+"/"+str(dp.Attributes, "loom.sandbox.error_kind")] += dp.Value
	}
	require.Equal(t, map[string]int64{"error/exception": 1, "error/syntax": 1, "ok/": 1}, runs)

	var timed uint64
	for _, dp := range data["loom.sandbox.duration"].(metricdata.Histogram[float64]).DataPoints {
		timed += dp.Count
	}
	require.Equal(t, uint64(3), timed)

	calls := map[bool]int64{}
	for _, dp := range data["loom.tool.calls"].(metricdata.Sum[int64]).DataPoints {
		v, _ := dp.Attributes.Value("loom.tool.is_error")
		calls[v.AsBool()] += dp.Value
	}
	require.Equal(t, map[bool]int64{true: 2, false: 1}, calls, "tool error rate: 2 of 3")

	var chats uint64
	for _, dp := range data["gen_ai.client.operation.duration"].(metricdata.Histogram[float64]).DataPoints {
		chats += dp.Count
	}
	require.Equal(t, uint64(4), chats)

	outcomes := map[string]int64{}
	for _, dp := range data["loom.workflow.outcomes"].(metricdata.Sum[int64]).DataPoints {
		outcomes[str(dp.Attributes, "loom.workflow.outcome")] += dp.Value
	}
	require.Equal(t, map[string]int64{"answered": 1}, outcomes)
}
