package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestEngineDefaultModelAndUsage(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "double", `{"n":21}`)).WithUsage(3, 10),
		modeltest.Text("42").WithUsage(4, 20),
	)
	double := testkit.Fn(t, "double", func(_ context.Context, in map[string]any) (map[string]any, error) {
		return map[string]any{"n": in["n"].(float64) * 2}, nil
	})
	coder := testkit.NewAI(t, agent.AIConfig{Name: "coder", Tools: []agent.Agent{double}})
	e := engine.New(engine.Config{Model: m})
	res, err := e.Invoke(t.Context(), coder, "double 21")
	require.NoError(t, err)
	require.Equal(t, "42", res.Text())
	require.Equal(t, model.Usage{InputTokens: 7, OutputTokens: 30}, res.Usage)
	require.Equal(t, int64(2), res.Invocations, "the coder and its tool")
	require.Len(t, res.Messages, 4, "user, assistant tool call, tool result, answer")
	require.Equal(t, model.RoleUser, res.Messages[0].Role)
	require.Equal(t, engine.Stats{Runs: 1, Invocations: 2, Usage: model.Usage{InputTokens: 7, OutputTokens: 30}}, e.Stats())
}

func TestEngineNoModelIsClear(t *testing.T) {
	coder := testkit.NewAI(t, agent.AIConfig{Name: "coder"})
	_, err := engine.New(engine.Config{}).Invoke(t.Context(), coder, "hi")
	require.ErrorIs(t, err, agent.ErrNoModel)
	require.Contains(t, err.Error(), "default model")
}

func TestEngineUsageTotalsUnderConcurrentRuns(t *testing.T) {
	const runs = 16
	turns := make([]modeltest.Turn, runs)
	for i := range turns {
		turns[i] = modeltest.Text("ok").WithUsage(10, 1)
	}
	m := modeltest.New(t, turns...)
	a := testkit.NewAI(t, agent.AIConfig{Name: "a"})
	e := engine.New(engine.Config{Model: m})
	var wg sync.WaitGroup
	for range runs {
		wg.Go(func() {
			res, err := e.Invoke(t.Context(), a, "hi")
			if !errors.Is(err, nil) || res.Usage.Total() != 11 {
				t.Errorf("run: %v, usage %v", err, res)
			}
		})
	}
	wg.Wait()
	require.Equal(t, engine.Stats{Runs: runs, Invocations: runs, Usage: model.Usage{InputTokens: 10 * runs, OutputTokens: runs}}, e.Stats())
}

func TestEngineLimits(t *testing.T) {
	t.Run("max invocations", func(t *testing.T) {
		step := testkit.Constant(t, "step", map[string]any{})
		seq, err := compose.NewSequence(compose.SequenceConfig{Name: "three", Steps: []agent.Agent{step, step, step}})
		require.NoError(t, err)
		e := engine.New(engine.Config{Limits: agent.Limits{MaxInvocations: 3}})
		_, err = e.Invoke(t.Context(), seq, map[string]any{})
		var le *agent.LimitError
		require.ErrorAs(t, err, &le)
		require.Equal(t, agent.LimitInvocations, le.Limit)
		require.Equal(t, engine.Stats{Runs: 1, Failed: 1, Invocations: 4}, e.Stats())
	})
	t.Run("max tokens", func(t *testing.T) {
		m := modeltest.New(t,
			modeltest.ToolCalls(modeltest.Call("c1", "step", `{}`)).WithUsage(250, 50),
		)
		a := testkit.NewAI(t, agent.AIConfig{Name: "a", Tools: []agent.Agent{testkit.Constant(t, "step", map[string]any{})}})
		e := engine.New(engine.Config{Model: m, Limits: agent.Limits{MaxTokens: 200}})
		_, err := e.Invoke(t.Context(), a, "go")
		require.ErrorIs(t, err, agent.ErrLimit)
		require.EqualError(t, err, "max tokens exceeded: 300 used, limit 200")
		require.Equal(t, 1, m.Calls(), "the second call is refused before it is made")
	})
	t.Run("timeout", func(t *testing.T) {
		slow := testkit.Fn(t, "slow", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		e := engine.New(engine.Config{Limits: agent.Limits{Timeout: 50 * time.Millisecond}})
		start := time.Now()
		_, err := e.Invoke(t.Context(), slow, map[string]any{})
		var le *agent.LimitError
		require.ErrorAs(t, err, &le)
		require.Equal(t, agent.LimitTimeout, le.Limit)
		require.Less(t, time.Since(start), 5*time.Second)
	})
}

func TestEngineRunStreamsEventsAndHooks(t *testing.T) {
	m := modeltest.New(t, modeltest.TextDeltas("4", "2"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "a"})
	var mu sync.Mutex
	var seen []string
	hooks := agent.Hooks{RunEnd: func(_ context.Context, e agent.HookEvent) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, e.Agent.Info().Name)
	}}
	e := engine.New(engine.Config{Model: m, Hooks: []agent.Hooks{hooks}})
	var kinds []agent.EventKind
	var text string
	for ev, err := range e.Run(t.Context(), a, "6*7") {
		require.NoError(t, err)
		kinds = append(kinds, ev.Kind)
		text += ev.Text
	}
	require.Equal(t, []agent.EventKind{agent.EventRunStart, agent.EventTextDelta, agent.EventTextDelta, agent.EventModelResponse, agent.EventRunEnd}, kinds)
	require.Equal(t, "42", text)
	require.Equal(t, []string{"a"}, seen)
}

func TestEngineInvokeAs(t *testing.T) {
	type answer struct {
		Message string `json:"message"`
	}
	e := engine.New(engine.Config{Model: modeltest.New(t, modeltest.Text("hello"))})
	got, err := engine.InvokeAs[answer](t.Context(), e, testkit.NewAI(t, agent.AIConfig{Name: "a"}), "hi")
	require.NoError(t, err)
	require.Equal(t, answer{Message: "hello"}, got)
}

func TestEngineTracesOutcomeOnRootSpan(t *testing.T) {
	tests := []struct {
		name    string
		turn    modeltest.Turn
		limits  agent.Limits
		outcome string
	}{
		{"answered", modeltest.Text("ok"), agent.Limits{}, engine.OutcomeAnswered},
		{"failed", modeltest.Error(errors.New("boom")), agent.Limits{}, engine.OutcomeFailed},
		{"limit", modeltest.Text("never"), agent.Limits{MaxInvocations: 1}, engine.OutcomeLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			reader := sdkmetric.NewManualReader()
			ms, err := agentrt.NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
			require.NoError(t, err)
			m := modeltest.New(nil, tc.turn)
			inner := testkit.NewAI(t, agent.AIConfig{Name: "inner"})
			seq, err := compose.NewSequence(compose.SequenceConfig{Name: "flow", Steps: []agent.Agent{inner}})
			require.NoError(t, err)
			e := engine.New(engine.Config{Model: m, TracerProvider: tp, Metrics: ms, Limits: tc.limits})
			_, _ = e.Invoke(t.Context(), seq, "hi")
			var root sdktrace.ReadOnlySpan
			for _, s := range rec.Ended() {
				if s.Name() == "invoke_agent flow" {
					root = s
				}
				if s.Name() == "invoke_agent inner" {
					for _, kv := range s.Attributes() {
						require.NotEqual(t, attribute.Key("loom.workflow.outcome"), kv.Key, "only the root span carries the outcome")
					}
				}
			}
			require.NotNil(t, root)
			got := map[attribute.Key]attribute.Value{}
			for _, kv := range root.Attributes() {
				got[kv.Key] = kv.Value
			}
			require.Equal(t, tc.outcome, got["loom.workflow.outcome"].AsString())
			require.Equal(t, "workflow", got["loom.agent.kind"].AsString())

			var rm metricdata.ResourceMetrics
			require.NoError(t, reader.Collect(t.Context(), &rm))
			var found bool
			for _, sm := range rm.ScopeMetrics {
				for _, mt := range sm.Metrics {
					if mt.Name != "loom.workflow.outcomes" {
						continue
					}
					sum := mt.Data.(metricdata.Sum[int64])
					require.Len(t, sum.DataPoints, 1)
					v, _ := sum.DataPoints[0].Attributes.Value("loom.workflow.outcome")
					require.Equal(t, tc.outcome, v.AsString())
					require.Equal(t, int64(1), sum.DataPoints[0].Value)
					found = true
				}
			}
			require.True(t, found, "loom.workflow.outcomes recorded")
		})
	}
}

func TestEngineStopReadingEarly(t *testing.T) {
	m := modeltest.New(t, modeltest.TextDeltas("a", "b", "c"))
	e := engine.New(engine.Config{Model: m})
	n := 0
	for range e.Run(t.Context(), testkit.NewAI(t, agent.AIConfig{Name: "a"}), "hi") {
		n++
		if n == 2 {
			break
		}
	}
	require.Equal(t, 2, n)
	require.Equal(t, int64(1), e.Stats().Runs)
}

func TestEngineRejectsNilAgentAndBadInput(t *testing.T) {
	e := engine.New(engine.Config{})
	_, err := e.Invoke(t.Context(), nil, "x")
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = e.Invoke(t.Context(), testkit.Constant(t, "a", nil), json.RawMessage(`{`))
	require.ErrorIs(t, err, agent.ErrInvalidInput)
	require.Equal(t, int64(0), e.Stats().Runs)
}
