package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// classifier is an AI guardrail answering the scripted verdicts.
func classifier(t *testing.T, verdicts ...agent.Verdict) (agent.Guardrail, *modeltest.Scripted) {
	t.Helper()
	turns := make([]modeltest.Turn, len(verdicts))
	for i, v := range verdicts {
		turns[i] = modeltest.JSON(v).WithUsage(20, 5)
	}
	m := modeltest.New(t, turns...)
	c := testkit.NewAI(t, agent.AIConfig{Name: "classifier", Model: m, Instructions: "Judge the {{.stage}} of {{.agent}}.", OutputSchema: agent.VerdictSchema()})
	return agent.Guardrail{Name: "topic", Agent: c}, m
}

func TestAgentGuardrailIsAChildRunCountedInUsage(t *testing.T) {
	g, cm := classifier(t, agent.Reject("off topic"))
	m := modeltest.New(t)
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, InputGuardrails: []agent.Guardrail{g}})
	evs, err := drain(t, t.Context(), a, "tell me a joke")
	tw := requireTrip(t, err, "topic", agent.StageInput)
	require.Equal(t, "off topic", tw.Reason)
	require.Zero(t, m.Calls())

	guardIn := cm.Request(0).Messages
	require.Equal(t, "Judge the input of bot.", guardIn[0].Text())
	require.Equal(t, "tell me a joke", guardIn[1].Text(), "the classifier reads the input's text as its message")

	end := evs[len(evs)-1]
	require.Equal(t, "bot", end.Agent)
	require.EqualValues(t, 25, end.Usage.Total(), "the classifier's tokens count for the guarded run")
	var child *agent.Event
	for i, ev := range evs {
		if ev.Kind == agent.EventRunEnd && ev.Agent == "classifier" {
			child = &evs[i]
		}
	}
	require.NotNil(t, child)
	require.Equal(t, end.RunID, child.ParentID)
}

func TestAgentGuardrailCountsAgainstLimits(t *testing.T) {
	g, _ := classifier(t)
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: modeltest.New(t), InputGuardrails: []agent.Guardrail{g}})
	ctx, cancel := agent.WithLimits(t.Context(), agent.Limits{MaxInvocations: 1})
	defer cancel()
	_, err := agent.Invoke(ctx, a, "hi")
	require.ErrorIs(t, err, agent.ErrLimit)
}

func TestAgentGuardrailMustAnswerAVerdict(t *testing.T) {
	plain := testkit.NewAI(t, agent.AIConfig{Name: "chatty", Model: modeltest.New(t, modeltest.Text("looks fine to me"))})
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: modeltest.New(t), InputGuardrails: []agent.Guardrail{{Name: "g", Agent: plain}}})
	_, err := agent.Invoke(t.Context(), a, "hi")
	require.ErrorContains(t, err, "agent.VerdictSchema()")
}

func TestGuardrailSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx := agentrt.WithTracerProvider(t.Context(), tp)
	tool, err := agent.GuardTool(addTool(t), agent.ToolGuards{Before: []agent.Guardrail{fixed("args_ok", agent.Allow(), nil)}})
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":1,"b":2}`)), modeltest.Text("BOMB"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Tools: []agent.Agent{tool},
		InputGuardrails:  []agent.Guardrail{fixed("in_ok", agent.Allow(), nil)},
		OutputGuardrails: []agent.Guardrail{denyWord("BOMB")},
	})
	_, err = agent.Invoke(ctx, a, "go")
	requireTrip(t, err, "deny_word", agent.StageOutput)

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
	}
	in := byName["guardrail in_ok"]
	require.NotNil(t, in)
	require.Equal(t, "input", attrs(in)["loom.guardrail.stage"].AsString())
	require.Equal(t, "allow", attrs(in)["loom.guardrail.action"].AsString())
	require.NotEqual(t, codes.Error, in.Status().Code)

	root := byName["invoke_agent bot"]
	require.NotNil(t, root)
	require.Equal(t, root.SpanContext().SpanID(), in.Parent().SpanID(), "input guardrails are checks of the agent's run")

	args := byName["guardrail args_ok"]
	require.NotNil(t, args)
	require.Equal(t, "tool_input", attrs(args)["loom.guardrail.stage"].AsString())
	require.Equal(t, "add", attrs(args)["loom.guardrail.agent"].AsString())

	out := byName["guardrail deny_word"]
	require.NotNil(t, out)
	require.Equal(t, codes.Error, out.Status().Code)
	require.Equal(t, "reject", attrs(out)["loom.guardrail.action"].AsString())
	require.Equal(t, "mentions a forbidden word", attrs(out)["loom.guardrail.reason"].AsString())
	require.Len(t, out.Events(), 1)
	require.Equal(t, "loom.guardrail.tripwire", out.Events()[0].Name)

	require.Equal(t, codes.Error, root.Status().Code)
	require.Equal(t, "deny_word", attrs(root)["loom.tripwire.guardrail"].AsString(), "the run's span names the guardrail that stopped it")
	require.Equal(t, "output", attrs(root)["loom.tripwire.stage"].AsString())
}

func TestTripwireErrorRoundTripsThroughItsRecord(t *testing.T) {
	trip := &agent.TripwireError{Guardrail: "secrets", Stage: agent.StageToolOutput, Agent: "fetch", Reason: "an API key"}
	cases := []struct {
		name string
		err  error
	}{
		{"tripwire", trip},
		{"halted", agent.Halt(trip)},
		{"tool error", &agent.ToolError{Tool: "fetch", CallID: "c1", Err: trip}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(agentrt.ErrorRecordOf(tc.err))
			require.NoError(t, err)
			var rec agent.ErrorRecord
			require.NoError(t, json.Unmarshal(b, &rec))
			got := rec.Err()
			require.ErrorIs(t, got, agent.ErrTripwire)
			var tw *agent.TripwireError
			require.ErrorAs(t, got, &tw)
			require.Equal(t, trip, tw)
			require.Equal(t, tc.err.Error(), got.Error())
		})
	}
	require.Equal(t, `guardrail "secrets" refused the result of fetch: an API key`, trip.Error())
}

func TestAgentGuardrailReplaysOnResume(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		t.Run(map[bool]string{false: "blocking", true: "parallel"}[parallel], func(t *testing.T) {
			g, cm := classifier(t, agent.Allow())
			g.Parallel = parallel
			confirm, err := agent.NewFunc("confirm", "Asks a person.", func(ctx context.Context, _ struct{}) (json.RawMessage, error) {
				return agent.Ask(ctx, "approval", "go on?", nil)
			})
			require.NoError(t, err)
			m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "confirm", `{}`)), modeltest.Text("done"))
			a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m, Tools: []agent.Agent{confirm}, InputGuardrails: []agent.Guardrail{g}})

			evs, err := drain(t, t.Context(), a, "deploy")
			var ie *agent.InterruptedError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, 1, cm.Calls())
			guardID := ""
			for _, ev := range evs {
				if ev.Agent == "classifier" && ev.Kind == agent.EventRunEnd {
					guardID = ev.RunID
				}
			}
			require.NotEmpty(t, guardID)

			j := agentrt.NewJournal(evs, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
			resumed, err := drain(t, agentrt.WithJournal(t.Context(), j), a, "deploy")
			require.NoError(t, err)
			require.Equal(t, 1, cm.Calls(), "the classifier is not called again on resume")
			require.Equal(t, 2, m.Calls(), "the first model call is replayed, the second made")
			replayed := false
			for _, ev := range resumed {
				if ev.Agent == "classifier" && ev.Kind == agent.EventRunEnd {
					replayed = ev.Replayed
					require.Equal(t, guardID, ev.RunID, "the guardrail keeps its run id")
				}
			}
			require.True(t, replayed)
		})
	}
}

func TestGuardrailChecksAreCounted(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	ms, err := agentrt.NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.Text("BOMB"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "bot", Model: m,
		InputGuardrails:  []agent.Guardrail{fixed("in_ok", agent.Allow(), nil)},
		OutputGuardrails: []agent.Guardrail{denyWord("BOMB")},
	})
	_, err = agent.Invoke(agentrt.WithMetrics(t.Context(), ms), a, "go")
	require.ErrorIs(t, err, agent.ErrTripwire)
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name != "loom.guardrail.checks" {
				continue
			}
			for _, dp := range mt.Data.(metricdata.Sum[int64]).DataPoints {
				name, _ := dp.Attributes.Value("loom.guardrail.name")
				action, _ := dp.Attributes.Value("loom.guardrail.action")
				got[name.AsString()+"/"+action.AsString()] += dp.Value
			}
		}
	}
	require.Equal(t, map[string]int64{"in_ok/allow": 1, "deny_word/reject": 1}, got)
}
