package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestAIInstructionsThenUser(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("Bonjour!"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "greeter", Model: m, Instructions: "Answer in {{.language}}."})
	out, err := agent.Invoke(t.Context(), a, map[string]string{"message": "Hello", "language": "French"})
	require.NoError(t, err)
	require.Equal(t, "Bonjour!", outputText(t, out))

	req := m.Request(0)
	require.Len(t, req.Messages, 2)
	require.Equal(t, model.RoleSystem, req.Messages[0].Role)
	require.Equal(t, "Answer in French.", req.Messages[0].Text())
	require.Equal(t, model.RoleUser, req.Messages[1].Role)
	require.Equal(t, "Hello", req.Messages[1].Text())
	require.Empty(t, req.Tools)
}

func TestAIToolLoop(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("call_7", "add", `{"a":2,"b":3}`)),
		modeltest.Text("2 + 3 = 5"),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}})
	out, err := agent.Invoke(t.Context(), a, "What is 2+3?")
	require.NoError(t, err)
	require.Equal(t, "2 + 3 = 5", outputText(t, out))
	require.Equal(t, 2, m.Calls(), "the model is called exactly twice")

	first := m.Request(0)
	require.Len(t, first.Tools, 1)
	require.Equal(t, "add", first.Tools[0].Name)
	require.JSONEq(t, `{"type":"object","properties":{"a":{"type":"integer","description":"first addend"},"b":{"type":"integer","description":"second addend"}},"required":["a","b"],"additionalProperties":false}`, string(first.Tools[0].Schema))

	second := m.Request(1).Messages
	require.Len(t, second, 3)
	require.Equal(t, model.RoleAssistant, second[1].Role)
	require.Equal(t, "call_7", second[1].ToolCalls()[0].ID)
	results := second[2].ToolResults()
	require.Len(t, results, 1)
	require.Equal(t, "call_7", results[0].CallID)
	require.Equal(t, "add", results[0].Name)
	require.False(t, results[0].IsError)
	require.JSONEq(t, `{"sum":5}`, string(results[0].Content))
}

var errDisk = errors.New("disk on fire")

func failingTool(t *testing.T) agent.Agent {
	f, err := agent.NewFunc("store", "Stores a note.", func(context.Context, struct {
		Note string `json:"note"`
	}) (struct{}, error) {
		return struct{}{}, errDisk
	})
	require.NoError(t, err)
	return f
}

func TestAIToolErrorGoesBackToModel(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "store", `{"note":"x"}`)),
		modeltest.Text("Sorry, storing failed."),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "notes", Model: m, Tools: []agent.Agent{failingTool(t)}})
	out, err := agent.Invoke(t.Context(), a, "store x")
	require.NoError(t, err)
	require.Equal(t, "Sorry, storing failed.", outputText(t, out))
	res := m.Request(1).Messages[2].ToolResults()[0]
	require.True(t, res.IsError)
	require.Equal(t, "c1", res.CallID)
	require.Contains(t, string(res.Content), "disk on fire")
}

func TestAIToolErrorFailFast(t *testing.T) {
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "store", `{"note":"x"}`)))
	a := testkit.NewAI(t, agent.AIConfig{Name: "notes", Model: m, Tools: []agent.Agent{failingTool(t)}, FailOnToolError: true})
	_, err := agent.Invoke(t.Context(), a, "store x")
	require.ErrorIs(t, err, errDisk)
	var te *agent.ToolError
	require.ErrorAs(t, err, &te)
	require.Equal(t, "store", te.Tool)
	require.Equal(t, 1, m.Calls())
}

func TestAIInvalidToolArguments(t *testing.T) {
	tests := []struct {
		name string
		args string
		want []string
	}{
		{"missing field", `{"a":1}`, []string{"b: required"}},
		{"wrong type", `{"a":1,"b":"two"}`, []string{"b: expected integer, got string"}},
		{"not JSON", `{"a":1,`, []string{"not valid JSON"}},
		{"unknown field", `{"a":1,"b":2,"c":3}`, []string{"c: unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := modeltest.New(t,
				modeltest.ToolCalls(modeltest.Call("bad", "add", tt.args)),
				modeltest.ToolCalls(modeltest.Call("good", "add", `{"a":1,"b":2}`)),
				modeltest.Text("3"),
			)
			a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}, FailOnToolError: true})
			out, err := agent.Invoke(t.Context(), a, "1+2")
			require.NoError(t, err, "a model mistake goes back to the model even with FailOnToolError")
			require.Equal(t, "3", outputText(t, out))
			bad := m.Request(1).Messages[2].ToolResults()[0]
			require.True(t, bad.IsError)
			require.Equal(t, "bad", bad.CallID)
			for _, w := range tt.want {
				require.Contains(t, string(bad.Content), w)
			}
			good := m.Request(2).Messages[4].ToolResults()[0]
			require.False(t, good.IsError)
			require.JSONEq(t, `{"sum":3}`, string(good.Content))
		})
	}
}

func TestAIUnknownTool(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "multiply", `{}`)),
		modeltest.Text("ok"),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{addTool(t)}})
	_, err := agent.Invoke(t.Context(), a, "2*3")
	require.NoError(t, err)
	res := m.Request(1).Messages[2].ToolResults()[0]
	require.True(t, res.IsError)
	require.Contains(t, string(res.Content), `unknown tool \"multiply\": call one of add`)
}

func TestAIParallelToolsRunConcurrentlyAndKeepOrder(t *testing.T) {
	var barrier sync.WaitGroup
	barrier.Add(2)
	slow, err := agent.NewFunc("wait", "Waits for its twin.", func(ctx context.Context, in struct {
		ID string `json:"id"`
	}) (map[string]string, error) {
		barrier.Done()
		done := make(chan struct{})
		go func() { barrier.Wait(); close(done) }()
		select {
		case <-done: // both calls are running at the same time
		case <-time.After(10 * time.Second):
			return nil, errors.New("the other call never started: tools did not run concurrently")
		}
		if in.ID == "first" {
			time.Sleep(20 * time.Millisecond) // finish last, to prove order is by call, not completion
		}
		return map[string]string{"id": in.ID}, nil
	})
	require.NoError(t, err)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "wait", `{"id":"first"}`), modeltest.Call("c2", "wait", `{"id":"second"}`)),
		modeltest.Text("done"),
	)
	a := testkit.NewAI(t, agent.AIConfig{Name: "par", Model: m, Tools: []agent.Agent{slow}})
	_, err = agent.Invoke(t.Context(), a, "go")
	require.NoError(t, err)
	results := m.Request(1).Messages[2].ToolResults()
	require.Len(t, results, 2)
	require.Equal(t, "c1", results[0].CallID)
	require.JSONEq(t, `{"id":"first"}`, string(results[0].Content))
	require.Equal(t, "c2", results[1].CallID)
	require.JSONEq(t, `{"id":"second"}`, string(results[1].Content))
}

func TestAIParallelCap(t *testing.T) {
	var mu sync.Mutex
	running, peak := 0, 0
	tool, err := agent.NewFunc("work", "Works.", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return in.N, nil
	})
	require.NoError(t, err)
	var calls []model.ToolCall
	for i := range 6 {
		calls = append(calls, modeltest.Call("c"+string(rune('0'+i)), "work", `{"n":1}`))
	}
	m := modeltest.New(t, modeltest.ToolCalls(calls...), modeltest.Text("ok"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "capped", Model: m, Tools: []agent.Agent{tool}, MaxParallelTools: 2})
	_, err = agent.Invoke(t.Context(), a, "go")
	require.NoError(t, err)
	require.LessOrEqual(t, peak, 2)
	require.Len(t, m.Request(1).Messages[2].ToolResults(), 6)
}

func TestAIRouter(t *testing.T) {
	billing := testkit.NewAI(t, agent.AIConfig{Name: "billing", Description: "Billing questions.", Model: modeltest.New(t, modeltest.Text("Your invoice is paid."))})
	support := testkit.NewAI(t, agent.AIConfig{Name: "support", Description: "Technical support.", Model: modeltest.New(t)})

	t.Run("handoff", func(t *testing.T) {
		m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("r1", "billing", `{"message":"Is my invoice paid?"}`)))
		router := testkit.NewAI(t, agent.AIConfig{Name: "triage", Model: m, Tools: []agent.Agent{billing, support}, ToolChoice: agent.Router()})
		out, err := agent.Invoke(t.Context(), router, "Is my invoice paid?")
		require.NoError(t, err)
		require.Equal(t, "Your invoice is paid.", outputText(t, out))
		require.Equal(t, 1, m.Calls(), "a router calls its model once")
		require.Equal(t, model.ToolRequired, m.Request(0).ToolChoice.Mode)
	})
	t.Run("no tool call", func(t *testing.T) {
		m := modeltest.New(t, modeltest.Text("I don't know whom to ask."))
		router := testkit.NewAI(t, agent.AIConfig{Name: "triage", Model: m, Tools: []agent.Agent{billing, support}, ToolChoice: agent.Router()})
		_, err := agent.Invoke(t.Context(), router, "hm")
		require.ErrorIs(t, err, agent.ErrNoRoute)
		require.Contains(t, err.Error(), "called none of billing, support")
	})
}

type answer struct {
	City    string `json:"city" jsonschema:"description=the city"`
	Celsius int    `json:"celsius"`
}

func TestAIStructuredOutput(t *testing.T) {
	schema, err := agent.SchemaFor[answer]()
	require.NoError(t, err)

	t.Run("valid", func(t *testing.T) {
		m := modeltest.New(t, modeltest.JSON(answer{City: "Oslo", Celsius: -3}))
		a := testkit.NewAI(t, agent.AIConfig{Name: "weather", Model: m, OutputSchema: schema})
		got, err := agent.InvokeAs[answer](t.Context(), a, "Oslo?")
		require.NoError(t, err)
		require.Equal(t, answer{City: "Oslo", Celsius: -3}, got)
		rs := m.Request(0).ResponseSchema
		require.NotNil(t, rs)
		require.Equal(t, "weather", rs.Name)
		require.JSONEq(t, string(schema), string(rs.Schema))
	})
	t.Run("one repair turn", func(t *testing.T) {
		m := modeltest.New(t, modeltest.Text(`{"city":"Oslo","celsius":"cold"}`), modeltest.Text("```json\n{\"city\":\"Oslo\",\"celsius\":-3}\n```"))
		a := testkit.NewAI(t, agent.AIConfig{Name: "weather", Model: m, OutputSchema: schema})
		got, err := agent.InvokeAs[answer](t.Context(), a, "Oslo?")
		require.NoError(t, err)
		require.Equal(t, -3, got.Celsius)
		repair := m.Request(1).Messages
		require.Contains(t, repair[len(repair)-1].Text(), "celsius: expected integer, got string")
	})
	t.Run("invalid twice", func(t *testing.T) {
		m := modeltest.New(t, modeltest.Text(`not json`), modeltest.Text(`{"city":"Oslo"}`))
		a := testkit.NewAI(t, agent.AIConfig{Name: "weather", Model: m, OutputSchema: schema})
		_, err := agent.InvokeAs[answer](t.Context(), a, "Oslo?")
		require.ErrorIs(t, err, agent.ErrInvalidOutput)
		var ve *agent.ValidationError
		require.ErrorAs(t, err, &ve)
		require.Equal(t, "invalid output for weather: celsius: required", ve.Error())
	})
}

func TestAIMaxTurns(t *testing.T) {
	m := modeltest.New(t)
	for i := range 3 {
		m.Append(modeltest.ToolCalls(modeltest.Call("c"+string(rune('0'+i)), "add", `{"a":1,"b":1}`)))
	}
	a := testkit.NewAI(t, agent.AIConfig{Name: "loopy", Model: m, Tools: []agent.Agent{addTool(t)}, MaxTurns: 3})
	_, err := agent.Invoke(t.Context(), a, "loop")
	var le *agent.LimitError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, agent.ErrLimit)
	require.Equal(t, agent.LimitTurns, le.Limit)
	require.Equal(t, "max turns exceeded: the model was called 3 times without giving an answer, limit 3", err.Error())
	require.Equal(t, 3, m.Calls())
}

func TestAIDefaultMaxTurnsIsTen(t *testing.T) {
	m := modeltest.New(t)
	for range 10 {
		m.Append(modeltest.ToolCalls(modeltest.Call("c", "add", `{"a":1,"b":1}`)))
	}
	a := testkit.NewAI(t, agent.AIConfig{Name: "loopy", Model: m, Tools: []agent.Agent{addTool(t)}})
	_, err := agent.Invoke(t.Context(), a, "loop")
	require.ErrorIs(t, err, agent.ErrLimit)
	require.Equal(t, 10, m.Calls())
}

func TestAIStreamingEqualsInvoke(t *testing.T) {
	script := func() *modeltest.Scripted {
		return modeltest.New(t,
			modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":20,"b":22}`)).WithUsage(10, 5),
			modeltest.TextDeltas("The ", "answer ", "is ", "42.").WithUsage(20, 4),
		)
	}
	tool := addTool(t)
	streamed := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: script(), Tools: []agent.Agent{tool}})
	var deltas []string
	var kinds []agent.EventKind
	var final agent.Event
	for ev, err := range streamed.Run(t.Context(), json.RawMessage(`{"message":"20+22?"}`)) {
		require.NoError(t, err)
		kinds = append(kinds, ev.Kind)
		if ev.Kind == agent.EventTextDelta {
			deltas = append(deltas, ev.Text)
		}
		if ev.Kind == agent.EventRunEnd && ev.Agent == "calc" {
			final = ev
		}
	}
	require.Equal(t, []string{"The ", "answer ", "is ", "42."}, deltas)
	require.Equal(t, []agent.EventKind{
		agent.EventRunStart, agent.EventUsage, agent.EventModelResponse, agent.EventToolCall,
		agent.EventRunStart, agent.EventRunEnd, // the add tool's nested run
		agent.EventToolResult,
		agent.EventTextDelta, agent.EventTextDelta, agent.EventTextDelta, agent.EventTextDelta,
		agent.EventUsage, agent.EventModelResponse, agent.EventRunEnd,
	}, kinds)
	require.Equal(t, model.Usage{InputTokens: 30, OutputTokens: 9}, final.Usage)
	require.Len(t, final.Messages, 4, "user, assistant tool call, tool result, answer")

	collected := testkit.NewAI(t, agent.AIConfig{Name: "calc", Model: script(), Tools: []agent.Agent{tool}})
	out, err := agent.Invoke(t.Context(), collected, "20+22?")
	require.NoError(t, err)
	require.JSONEq(t, string(final.Output), string(out))
	require.Equal(t, "The answer is 42.", outputText(t, out))
}

func TestAIStopReadingEarly(t *testing.T) {
	m := modeltest.New(t, modeltest.TextDeltas("a", "b", "c"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "talker", Model: m})
	n := 0
	for ev, err := range a.Run(t.Context(), json.RawMessage(`{"message":"hi"}`)) {
		require.NoError(t, err)
		if ev.Kind == agent.EventTextDelta {
			n++
			break
		}
	}
	require.Equal(t, 1, n)
}

func TestAIModelPrecedence(t *testing.T) {
	own := modeltest.New(t, modeltest.Text("own"))
	run := modeltest.New(t, modeltest.Text("run"), modeltest.Text("run"))
	def := modeltest.New(t, modeltest.Text("default"))
	ctx := agent.WithEnv(t.Context(), agent.Env{DefaultModel: def})

	withOwn := testkit.NewAI(t, agent.AIConfig{Name: "a", Model: own})
	noOwn := testkit.NewAI(t, agent.AIConfig{Name: "b"})

	out, err := agent.Invoke(agent.WithEnv(ctx, agent.Env{Model: run}), withOwn, "x")
	require.NoError(t, err)
	require.Equal(t, "own", outputText(t, out))
	out, err = agent.Invoke(agent.WithEnv(ctx, agent.Env{Model: run}), noOwn, "x")
	require.NoError(t, err)
	require.Equal(t, "run", outputText(t, out))
	out, err = agent.Invoke(ctx, noOwn, "x")
	require.NoError(t, err)
	require.Equal(t, "default", outputText(t, out))
	_, err = agent.Invoke(t.Context(), noOwn, "x")
	require.ErrorIs(t, err, agent.ErrNoModel)
	require.Contains(t, err.Error(), "agent.WithEnv(ctx, agent.Env{Model: m})")
}

func TestAIHistoryAsRealMessages(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("You said hi."))
	a := testkit.NewAI(t, agent.AIConfig{Name: "chat", Model: m, Instructions: "Be kind."})
	hist := []model.Message{model.UserMessage("hi"), model.AssistantMessage("hello")}
	_, err := agent.Invoke(agent.WithEnv(t.Context(), agent.Env{History: hist}), a, "what did I say?")
	require.NoError(t, err)
	msgs := m.Request(0).Messages
	require.Len(t, msgs, 4)
	require.Equal(t, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleUser}, []model.Role{msgs[0].Role, msgs[1].Role, msgs[2].Role, msgs[3].Role})
	require.Equal(t, "hello", msgs[2].Text())
}

func TestAIPanickingToolBecomesError(t *testing.T) {
	boom, err := agent.NewFunc("boom", "Panics.", func(context.Context, struct{}) (int, error) {
		panic("tool exploded")
	})
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "boom", `{}`)), modeltest.Text("it broke"))
	a := testkit.NewAI(t, agent.AIConfig{Name: "p", Model: m, Tools: []agent.Agent{boom}})
	out, err := agent.Invoke(t.Context(), a, "go")
	require.NoError(t, err)
	require.Equal(t, "it broke", outputText(t, out))
	res := m.Request(1).Messages[2].ToolResults()[0]
	require.True(t, res.IsError)
	require.Contains(t, string(res.Content), "agent panicked: boom")
}

func TestAIModelErrorMidStream(t *testing.T) {
	cut := errors.New("connection reset")
	m := modeltest.New(t, modeltest.TextDeltas("par", "tial").ThenError(cut))
	a := testkit.NewAI(t, agent.AIConfig{Name: "x", Model: m})
	_, err := agent.Invoke(t.Context(), a, "hi")
	require.ErrorIs(t, err, cut)
	require.Contains(t, err.Error(), "agent x: model modeltest:scripted")
}

func TestAIStopReadingDuringParallelTools(t *testing.T) {
	started := make(chan struct{}, 2)
	slow, err := agent.NewFunc("slow", "Waits until cancelled.", func(ctx context.Context, _ struct{}) (int, error) {
		started <- struct{}{}
		<-ctx.Done()
		return 0, ctx.Err()
	})
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "slow", `{}`), modeltest.Call("c2", "slow", `{}`)))
	a := testkit.NewAI(t, agent.AIConfig{Name: "par", Model: m, Tools: []agent.Agent{slow}})
	nested := 0
	for ev, err := range a.Run(t.Context(), json.RawMessage(`{"message":"go"}`)) {
		require.NoError(t, err)
		if ev.Kind == agent.EventRunStart && ev.Agent == "slow" {
			nested++
			if nested == 2 {
				<-started
				<-started
				break // both tools are running; stopping must cancel and wait for them
			}
		}
	}
	require.Equal(t, 2, nested)
	// goleak in TestMain fails the package if a tool goroutine outlived the run.
}

// TestAIInputMessage: the user message is the input's text field, the
// JSON of a text field that is not a string, or the input's JSON when it
// has no text field; an input guardrail's replacement is what is sent.
// The input is parsed once for its schema check and its text.
func TestAIInputMessage(t *testing.T) {
	anyObject := json.RawMessage(`{"type":"object"}`)
	cases := []struct {
		name    string
		input   string
		replace string
		want    string
	}{
		{"text field", `{"message":"hi","n":1}`, "", "hi"},
		{"text field not a string", `{"message":{"a":1}}`, "", `{"a":1}`},
		{"no text field", `{"task":"x"}`, "", `{"task":"x"}`},
		{"replaced", `{"message":"my key is sk-1"}`, `{"message":"my key is [redacted]"}`, "my key is [redacted]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := modeltest.New(t, modeltest.Text("ok"))
			cfg := agent.AIConfig{Name: "a", Model: m, InputSchema: anyObject}
			if tc.replace != "" {
				cfg.InputGuardrails = []agent.Guardrail{{Name: "redact", Check: func(context.Context, agent.GuardInput) (agent.Verdict, error) {
					return agent.Replace(json.RawMessage(tc.replace), "a key"), nil
				}}}
			}
			a := testkit.NewAI(t, cfg)
			_, err := agent.Invoke(t.Context(), a, json.RawMessage(tc.input))
			require.NoError(t, err)
			msgs := m.Request(0).Messages
			require.Equal(t, tc.want, msgs[len(msgs)-1].Text())
		})
	}
}
