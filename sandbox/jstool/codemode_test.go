package jstool

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/taskrun"
	"github.com/loomwork/loom/sandbox"
)

type sumIn struct {
	A float64 `json:"a" jsonschema:"description=The first number."`
	B float64 `json:"b"`
}

type sumOut struct {
	Sum float64 `json:"sum"`
}

// testToolset is a get_sum tool, a tool that fails and one that asks a
// person, as loom agents.
func testToolset(t *testing.T) agent.Toolset {
	t.Helper()
	sum, err := agent.NewFunc("get-sum", "Adds two numbers.", func(_ context.Context, in sumIn) (sumOut, error) {
		return sumOut{Sum: in.A + in.B}, nil
	})
	require.NoError(t, err)
	fail, err := agent.NewFunc("fail", "Always fails.", func(context.Context, struct{}) (struct{}, error) {
		return struct{}{}, errors.New("no luck")
	})
	require.NoError(t, err)
	ask, err := agent.NewFunc("ask", "Asks a person.", func(ctx context.Context, _ struct{}) (json.RawMessage, error) {
		return agent.Ask(ctx, "approval", map[string]string{"what": "go on?"}, nil)
	})
	require.NoError(t, err)
	return agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{sum, fail, ask}, nil })
}

func TestCodeToolCallsAreNestedRuns(t *testing.T) {
	for _, ex := range []struct {
		name string
		exec func(t *testing.T) sandbox.ToolRunner
	}{
		{"in-process", func(t *testing.T) sandbox.ToolRunner { return newTestInProcess(t, sandbox.InProcessConfig{}) }},
		{"isolated", func(t *testing.T) sandbox.ToolRunner {
			return newTestIsolated(t, sandbox.IsolatedConfig{Concurrency: 1})
		}},
	} {
		t.Run(ex.name, func(t *testing.T) {
			tool, err := New(ex.exec(t), Config{Toolsets: []agent.Toolset{testToolset(t)}, CallLimits: sandbox.CallLimits{MaxCalls: 4}})
			require.NoError(t, err)
			require.Contains(t, tool.Info().Description, "await tools.get_sum")
			in, _ := json.Marshal(Input{Code: `const [x, y] = await Promise.all([tools.get_sum({a: 1, b: 2}), tools.get_sum({a: 3, b: 4})]);
let caught; try { await tools.fail() } catch (e) { caught = e.message }
({total: x.sum + y.sum, caught})`})
			var toolRun string
			children := map[string]string{} // run id -> agent
			var out json.RawMessage
			for ev, err := range tool.Run(context.Background(), in) {
				require.NoError(t, err)
				switch {
				case ev.Kind == agent.EventRunStart && ev.Agent == Name:
					toolRun = ev.RunID
				case ev.Kind == agent.EventRunStart && ev.ParentID == toolRun:
					children[ev.RunID] = ev.Agent
				case ev.Kind == agent.EventRunEnd && ev.RunID == toolRun:
					out = ev.Output
				}
			}
			var got Output
			require.NoError(t, json.Unmarshal(out, &got))
			require.JSONEq(t, `{"total":10,"caught":"tools.fail: no luck"}`, string(got.Result))
			names := []string{}
			for _, a := range children {
				names = append(names, a)
			}
			require.ElementsMatch(t, []string{"get-sum", "get-sum", "fail"}, names)
		})
	}
}

func TestCodeToolQuestionInterrupts(t *testing.T) {
	tool, err := New(newTestInProcess(t, sandbox.InProcessConfig{Limits: sandbox.Limits{Timeout: time.Minute}}), Config{Toolsets: []agent.Toolset{testToolset(t)}})
	require.NoError(t, err)
	in, _ := json.Marshal(Input{Code: `await tools.ask({})`})
	_, err = agent.Invoke(context.Background(), tool, in)
	require.ErrorIs(t, err, agent.ErrInterrupted)
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "approval", ie.Questions[0].Kind)
}

func TestCodeToolNeedsAToolRunner(t *testing.T) {
	_, err := New(plainExecutor{}, Config{Toolsets: []agent.Toolset{testToolset(t)}})
	require.ErrorContains(t, err, "ToolRunner")
	_, err = New(newTestInProcess(t, sandbox.InProcessConfig{}), Config{CallLimits: sandbox.CallLimits{MaxCalls: -1}})
	require.ErrorContains(t, err, "MaxCalls is -1")
}

type plainExecutor struct{}

func (plainExecutor) Run(context.Context, string) (*sandbox.Result, error) {
	return &sandbox.Result{}, nil
}
func (plainExecutor) Close() error { return nil }

func TestCodeToolCallSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tool, err := New(newTestInProcess(t, sandbox.InProcessConfig{}), Config{Toolsets: []agent.Toolset{testToolset(t)}})
	require.NoError(t, err)
	in, _ := json.Marshal(Input{Code: `(await tools.get_sum({a: 1, b: 2})).sum`})
	_, err = agent.Invoke(agentrt.WithTracerProvider(t.Context(), tp), tool, in)
	require.NoError(t, err)
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
	}
	run, call, inner := byName["sandbox.run"], byName["execute_tool get-sum"], byName["invoke_agent get-sum"]
	require.NotNil(t, run)
	require.NotNil(t, call)
	require.NotNil(t, inner)
	require.Equal(t, run.SpanContext().SpanID(), call.Parent().SpanID(), "the call's span is under the sandbox.run span")
	attrs := map[string]int64{}
	for _, a := range run.Attributes() {
		attrs[string(a.Key)] = a.Value.AsInt64()
	}
	require.EqualValues(t, 1, attrs["loom.sandbox.tool_calls"])
	require.Equal(t, call.SpanContext().SpanID(), inner.Parent().SpanID())
}

// TestCodeToolRefusesCallsAfterItsRun: once the evaluateJs run stops
// serving calls, a call that still comes (from a run given up at its
// deadline) is refused without running the tool.
func TestCodeToolRefusesCallsAfterItsRun(t *testing.T) {
	q := &callQueue{box: taskrun.GoRunner{}.NewMailbox()}
	q.end()
	ran := false
	a, err := agent.NewFunc("x", "x", func(context.Context, struct{}) (struct{}, error) { ran = true; return struct{}{}, nil })
	require.NoError(t, err)
	_, err = q.caller(a)(t.Context(), json.RawMessage(`{}`))
	require.ErrorIs(t, err, sandbox.ErrRunEnded)
	require.False(t, ran)
}

// TestCodeToolCallsStartInCodeOrder: the calls' nested runs start in the
// order the code made them, whatever order their goroutines reach the run
// in, skipping calls refused before the tool ran, so that the runs' ids
// (which a resumed run replays by) follow the code.
func TestCodeToolCallsStartInCodeOrder(t *testing.T) {
	for name, exec := range map[string]sandbox.ToolRunner{"in-process": newTestInProcess(t, sandbox.InProcessConfig{}), "isolated": newTestIsolated(t, sandbox.IsolatedConfig{Concurrency: 1})} {
		t.Run(name, func(t *testing.T) {
			tool, err := New(exec, Config{Toolsets: []agent.Toolset{testToolset(t)}})
			require.NoError(t, err)
			in, _ := json.Marshal(Input{Code: `await Promise.all([0, 1, 'x', 3, 4, 5, 6, 7].map(a => tools.get_sum({a, b: 0}).catch(() => null)))`})
			for range 10 {
				var toolRun string
				byID := map[string]string{} // nested run id -> its input
				for ev, err := range tool.Run(context.Background(), in) {
					require.NoError(t, err)
					if ev.Kind == agent.EventRunStart && ev.Agent == Name {
						toolRun = ev.RunID
					} else if ev.Kind == agent.EventRunStart && ev.ParentID == toolRun {
						byID[ev.RunID] = string(ev.Input)
					}
				}
				var order []string
				for i := 1; i <= len(byID); i++ {
					order = append(order, byID[toolRun+"."+strconv.Itoa(i)])
				}
				require.Equal(t, []string{`{"a":0,"b":0}`, `{"a":1,"b":0}`, `{"a":3,"b":0}`, `{"a":4,"b":0}`, `{"a":5,"b":0}`, `{"a":6,"b":0}`, `{"a":7,"b":0}`}, order)
			}
		})
	}
}

// recordingRunner is a task runner that starts its tasks as the default
// does and records what went through it.
type recordingRunner struct {
	mu      sync.Mutex
	tasks   int
	ended   int // executorEnded messages received
	arrived int // callsArrived messages received
}

func (r *recordingRunner) Go(task func()) {
	r.mu.Lock()
	r.tasks++
	r.mu.Unlock()
	taskrun.GoRunner{}.Go(task)
}

func (r *recordingRunner) NewMailbox() agentrt.Mailbox {
	return recordingMailbox{r, taskrun.GoRunner{}.NewMailbox()}
}

type recordingMailbox struct {
	r *recordingRunner
	agentrt.Mailbox
}

func (m recordingMailbox) Receive() any {
	msg := m.Mailbox.Receive()
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	switch msg.(type) {
	case executorEnded:
		m.r.ended++
	case callsArrived:
		m.r.arrived++
	}
	return msg
}

// TestCodeModeGoesThroughTheTaskRunner: code mode starts the executor as
// a task of the run's task runner (agentrt.WithTaskRunner) and hears of its
// calls and its end through the runner's mailbox, so that a durable
// engine's runner schedules it.
func TestCodeModeGoesThroughTheTaskRunner(t *testing.T) {
	for _, ex := range toolRunners {
		t.Run(ex.name, func(t *testing.T) {
			tool, err := New(ex.exec(t, 0), Config{Toolsets: []agent.Toolset{testToolset(t)}})
			require.NoError(t, err)
			rec := &recordingRunner{}
			ctx := agentrt.WithTaskRunner(t.Context(), rec)
			in, _ := json.Marshal(Input{Code: `(await tools.get_sum({a: 1, b: 10})).sum + (await tools.get_sum({a: 2, b: 10})).sum`})
			out, err := agent.Invoke(ctx, tool, in)
			require.NoError(t, err)
			var res Output
			require.NoError(t, json.Unmarshal(out, &res))
			require.JSONEq(t, `23`, string(res.Result))
			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.Equal(t, 1, rec.ended, "the executor's end comes through the runner's mailbox")
			require.GreaterOrEqual(t, rec.arrived, 2, "the calls come through the runner's mailbox")
			require.Equal(t, 1, rec.tasks, "the executor is the runner's one task (a lone call runs on the run's goroutine)")
		})
	}
}
