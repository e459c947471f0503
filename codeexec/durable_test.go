package codeexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/postgres"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

const factorialCode = "let f = 1; for (let i = 2; i <= 15; i++) f *= i; f"

// countingExec counts the snippets it runs by appending a line to a file,
// so that runs in several processes add up.
type countingExec struct {
	sandbox.Executor
	log string
}

func (c countingExec) Run(ctx context.Context, code string) (*sandbox.Result, error) {
	f, err := os.OpenFile(c.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	_, _ = f.WriteString("run\n")
	_ = f.Close()
	return c.Executor.Run(ctx, code)
}

// pendingApprover leaves every decision to a person.
var pendingApprover = codeexec.ApproverFunc(func(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
	return codeexec.Approval{}, codeexec.ErrPending
})

func newDurableCoder(t testing.TB, m model.Model, sandboxLog string) *codeexec.CodeExecution {
	t.Helper()
	inproc, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = inproc.Close() })
	ce, err := codeexec.New(codeexec.Config{
		Model: m, Sandbox: countingExec{Executor: inproc, log: sandboxLog}, Approver: pendingApprover,
	})
	require.NoError(t, err)
	return ce
}

// answerFromToolResult is the coder's second turn: it reports the value the
// sandbox computed.
func answerFromToolResult(req model.Request) modeltest.Turn {
	last := req.Messages[len(req.Messages)-1]
	results := last.ToolResults()
	if len(results) != 1 || results[0].IsError {
		return modeltest.Text(fmt.Sprintf("unexpected tool result: %+v", results))
	}
	var out struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(results[0].Content, &out)
	return modeltest.Text("15! = " + string(out.Result))
}

// TestDurableChild is the child process of TestApprovalSurvivesKill.
func TestDurableChild(t *testing.T) {
	phase := os.Getenv("LOOM_DURABLE_PHASE")
	if phase == "" {
		t.Skip("run by TestApprovalSurvivesKill in a child process")
	}
	ctx := context.Background()
	store := openDurableStore(t, ctx, os.Getenv("LOOM_DURABLE_STORE"), os.Getenv("LOOM_DURABLE_DB"))
	sandboxLog := os.Getenv("LOOM_DURABLE_SANDBOX_LOG")
	switch phase {
	case "start":
		m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", mustJSON(map[string]string{"code": factorialCode}))))
		ce := newDurableCoder(t, m, sandboxLog)
		e := engine.New(engine.Config{Model: m, Checkpoints: store})
		var runID string
		for ev, err := range e.Run(ctx, ce, "Calculate 15!") {
			if ev.Kind == agent.EventRunStart && runID == "" {
				runID = ev.RunID
			}
			if err != nil {
				require.ErrorIs(t, err, agent.ErrInterrupted)
			}
		}
		fmt.Printf("RUN %s calls=%d\n", runID, m.Calls())
		select {} // wait to be killed
	case "resume":
		m := modeltest.New(t, modeltest.Func(answerFromToolResult))
		ce := newDurableCoder(t, m, sandboxLog)
		e := engine.New(engine.Config{Model: m, Checkpoints: store})
		runID := os.Getenv("LOOM_DURABLE_RUN")
		pending, err := e.Pending(ctx, runID)
		require.NoError(t, err)
		require.Len(t, pending, 1)
		require.Equal(t, codeexec.ApprovalKind, pending[0].Kind)
		res, err := e.ResumeInvoke(ctx, ce, runID, map[string]json.RawMessage{pending[0].ID: json.RawMessage(`{"approved":true}`)})
		require.NoError(t, err)
		fmt.Printf("ANSWER %s calls=%d\n", res.Text(), m.Calls())
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// openDurableStore opens the checkpoint store a durable test runs on:
// SQLite in the file at where, or PostgreSQL at the DSN where.
func openDurableStore(t *testing.T, ctx context.Context, kind, where string) checkpoint.Store {
	t.Helper()
	var store checkpoint.Store
	var err error
	switch kind {
	case "postgres":
		store, err = postgres.Open(ctx, postgres.Config{DSN: where})
	default:
		store, err = sqlite.Open(ctx, sqlite.Config{Path: where})
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// TestApprovalSurvivesKill runs Coder→Sandbox to its approval question in
// one process, kills it with SIGKILL, and resumes the run with the
// approval in a new process: the run answers right, and neither the model
// call nor any code run before the kill is repeated.
func TestApprovalSurvivesKill(t *testing.T) {
	stores := []struct{ kind, where string }{{"sqlite", filepath.Join(t.TempDir(), "runs.db")}}
	if dsn := os.Getenv("LOOM_TEST_POSTGRES_DSN"); dsn != "" {
		stores = append(stores, struct{ kind, where string }{"postgres", dsn})
	} else if os.Getenv("CI") == "true" {
		t.Fatal("LOOM_TEST_POSTGRES_DSN is unset under CI: .ci/postgres.sh must start PostgreSQL")
	}
	for _, st := range stores {
		t.Run(st.kind, func(t *testing.T) { approvalSurvivesKill(t, st.kind, st.where) })
	}
}

func approvalSurvivesKill(t *testing.T, kind, where string) {
	dir := t.TempDir()
	env := []string{
		"LOOM_DURABLE_STORE=" + kind,
		"LOOM_DURABLE_DB=" + where,
		"LOOM_DURABLE_SANDBOX_LOG=" + filepath.Join(dir, "sandbox.log"),
	}
	child := func(phase string, extra ...string) *exec.Cmd {
		return testkit.Child("TestDurableChild", append(append(env, "LOOM_DURABLE_PHASE="+phase), extra...)...)
	}

	// The first process runs to the approval question, then is killed.
	first := child("start")
	out, err := first.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	line := testkit.LineWith(t, out, "RUN ")
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_ = first.Wait()
	fields := strings.Fields(line)
	require.Len(t, fields, 3, line)
	runID := fields[1]
	require.Equal(t, "calls=1", fields[2], "one model call before the question")
	require.NoFileExists(t, filepath.Join(dir, "sandbox.log"), "no code ran before approval")

	// A new process resumes the run with the approval.
	second := child("resume", "LOOM_DURABLE_RUN="+runID)
	res, err := second.Output()
	require.NoError(t, err, string(res))
	require.Contains(t, string(res), "ANSWER 15! = 1307674368000 calls=1", "the first model call was replayed, not repeated")
	log, err := os.ReadFile(filepath.Join(dir, "sandbox.log"))
	require.NoError(t, err)
	require.Equal(t, "run\n", string(log), "the approved code ran exactly once")
}

func TestInterruptResumeAdvancesOnce(t *testing.T) {
	ctx := t.Context()
	store := checkpoint.NewMemory()
	dir := t.TempDir()
	log := filepath.Join(dir, "sandbox.log")
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", mustJSON(map[string]string{"code": factorialCode}))))
	ce := newDurableCoder(t, m, log)
	e := engine.New(engine.Config{Model: m, Checkpoints: store})
	_, err := e.Invoke(ctx, ce, "Calculate 15!")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Questions, 1)
	q := ie.Questions[0]
	require.Equal(t, codeexec.ApprovalKind, q.Kind)
	var req codeexec.ApprovalRequest
	require.NoError(t, json.Unmarshal(q.Payload, &req))
	require.Equal(t, factorialCode, req.Code)
	runID := q.Run

	t.Run("bad answers are refused and nothing is written", func(t *testing.T) {
		head, err := store.Head(ctx, runID)
		require.NoError(t, err)
		for _, tc := range []struct {
			name    string
			answers map[string]json.RawMessage
			want    error
		}{
			{"unknown question", map[string]json.RawMessage{"nope": json.RawMessage(`{"approved":true}`)}, engine.ErrUnknownQuestion},
			{"schema mismatch", map[string]json.RawMessage{q.ID: json.RawMessage(`{"approved":"yes"}`)}, agent.ErrInvalidAnswer},
			{"not JSON", map[string]json.RawMessage{q.ID: json.RawMessage(`{`)}, agent.ErrInvalidAnswer},
		} {
			_, err := e.ResumeInvoke(ctx, ce, runID, tc.answers)
			require.ErrorIs(t, err, tc.want, tc.name)
		}
		after, err := store.Head(ctx, runID)
		require.NoError(t, err)
		require.Equal(t, head.Seq, after.Seq)
	})

	m.Append(modeltest.Func(answerFromToolResult))
	const racers = 8
	var wins atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, racers)
	for i := range racers {
		wg.Go(func() {
			res, err := e.ResumeInvoke(ctx, ce, runID, map[string]json.RawMessage{q.ID: json.RawMessage(`{"approved":true}`)})
			errs[i] = err
			if err == nil {
				wins.Add(1)
				require.Equal(t, "15! = 1307674368000", res.Text())
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(1), wins.Load(), "exactly one resume advances: %v", errs)
	for _, err := range errs {
		if err != nil && !errors.Is(err, engine.ErrRunEnded) { // a late loser finds the run ended
			require.ErrorIs(t, err, engine.ErrAlreadyResumed)
		}
	}
	require.Equal(t, 2, m.Calls(), "one model call before the question, one after")
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, "run\n", string(b))
	_, err = e.ResumeInvoke(ctx, ce, runID, nil)
	require.ErrorIs(t, err, engine.ErrRunEnded)
}

// TestReplayFromEveryCheckpoint runs a workflow with fixed seams to its end,
// then resumes a copy of its checkpoints cut at each one: the resumed run
// yields the same events (ids, sequence numbers, times, contents), and the
// model and the tool are called only for the steps after the cut.
func TestReplayFromEveryCheckpoint(t *testing.T) {
	ctx := agentrt.WithIDs(t.Context(), func() string { return "run" })
	ctx = agentrt.WithClock(ctx, agentrt.ClockFunc(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }))
	var toolRuns atomic.Int32
	add, err := agent.NewFunc("add", "Adds.", func(_ context.Context, in struct{ A, B int }) (int, error) {
		toolRuns.Add(1)
		return in.A + in.B, nil
	})
	require.NoError(t, err)
	turns := func() []modeltest.Turn {
		return []modeltest.Turn{
			modeltest.ToolCalls(modeltest.Call("c1", "add", `{"A":1,"B":2}`), modeltest.Call("c2", "add", `{"A":3,"B":4}`)).WithUsage(5, 2),
			modeltest.ToolCalls(modeltest.Call("c3", "add", `{"A":3,"B":7}`)).WithUsage(7, 2),
			modeltest.TextDeltas("The ", "sum is 10.").WithUsage(9, 3),
		}
	}
	m := modeltest.New(t, turns()...)
	calc, err := agent.NewAI(agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{add}})
	require.NoError(t, err)
	store := checkpoint.NewMemory()
	e := engine.New(engine.Config{Checkpoints: store})
	var want []agent.Event
	for ev, err := range e.Run(ctx, calc, "sum things") {
		require.NoError(t, err)
		want = append(want, ev)
	}
	cps, err := store.List(ctx, "run")
	require.NoError(t, err)
	require.Greater(t, len(cps), 4)
	require.Equal(t, engine.CheckpointEnd, cps[len(cps)-1].Kind)
	require.Equal(t, int32(3), toolRuns.Load())

	for cut := 1; cut < len(cps); cut++ {
		t.Run(fmt.Sprintf("cut after checkpoint %d of %d", cut, len(cps)), func(t *testing.T) {
			copyStore := checkpoint.NewMemory()
			for _, cp := range cps[:cut] {
				require.NoError(t, copyStore.Put(ctx, cp))
			}
			var recorded []agent.Event
			for _, cp := range cps[:cut] {
				var evs []agent.Event
				require.NoError(t, json.Unmarshal(cp.Events, &evs))
				recorded = append(recorded, evs...)
			}
			wantCalls := 3
			for _, ev := range recorded {
				if ev.Kind == agent.EventModelResponse {
					wantCalls--
				}
			}
			toolRuns.Store(0)
			m2 := modeltest.New(t, turns()[3-wantCalls:]...)
			calc2, err := agent.NewAI(agent.AIConfig{Name: "calc", Model: m2, Tools: []agent.Agent{add}})
			require.NoError(t, err)
			e2 := engine.New(engine.Config{Checkpoints: copyStore})
			var got []agent.Event
			for ev, err := range e2.Resume(ctx, calc2, "run", nil) {
				require.NoError(t, err)
				got = append(got, ev)
			}
			require.Equal(t, wantCalls, m2.Calls(), "model calls only after the cut")
			// A tool run that ended before the cut, and whose result the
			// AI's record sent back to the model, is skipped: the resumed
			// AI takes that result and the run is not replayed.
			wantRuns, gotRuns := byRun(t, want), byRun(t, got)
			results := map[string]bool{}
			for _, ev := range recorded {
				if ev.Kind == agent.EventToolResult {
					results[ev.ToolResult.CallID] = true
				}
			}
			var skipped []string
			for id := range wantRuns {
				if _, ok := gotRuns[id]; !ok {
					skipped = append(skipped, id)
					delete(wantRuns, id)
				}
			}
			var resulted []string
			for _, ev := range recorded {
				if ev.Kind == agent.EventRunEnd && ev.Agent == "add" && results[callOf(want, ev.RunID)] {
					resulted = append(resulted, ev.RunID)
				}
			}
			require.ElementsMatch(t, resulted, skipped, "exactly the ended tool runs with a recorded result are skipped")
			require.Equal(t, wantRuns, gotRuns)
			all, err := copyStore.List(ctx, "run")
			require.NoError(t, err)
			require.Equal(t, engine.CheckpointEnd, all[len(all)-1].Kind)
		})
	}
}

// callOf returns the id of the tool call that run id (a tool run of the
// root) answered: the root's tool calls are numbered as its nested runs.
func callOf(evs []agent.Event, id string) string {
	var calls []string
	for _, ev := range evs {
		if ev.Kind == agent.EventToolCall && ev.ParentID == "" {
			calls = append(calls, ev.ToolCall.ID)
		}
	}
	var k int
	if _, err := fmt.Sscanf(id, "run.%d", &k); err != nil || k < 1 || k > len(calls) {
		return ""
	}
	return calls[k-1]
}

// byRun groups events by run, each run's in the order of their sequence
// numbers, as JSON without the Replayed mark: parallel runs interleave
// differently from one execution to the next, but each run's own sequence
// is fixed.
func byRun(t *testing.T, evs []agent.Event) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, ev := range evs {
		ev.Replayed = false
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		out[ev.RunID] = append(out[ev.RunID], string(b))
	}
	return out
}

// BenchmarkResume measures resuming a Coder→Sandbox run at its approval
// question (one model call and its events replayed, the approved snippet
// run, one more model call) from each store. Setting up each run to its
// question is not timed.
func BenchmarkResume(b *testing.B) {
	for _, kind := range []string{"memory", "sqlite"} {
		b.Run(kind, func(b *testing.B) {
			ctx := context.Background()
			var store checkpoint.Store = checkpoint.NewMemory()
			if kind == "sqlite" {
				s, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(b.TempDir(), "runs.db")})
				require.NoError(b, err)
				defer s.Close()
				store = s
			}
			log := filepath.Join(b.TempDir(), "sandbox.log")
			m := modeltest.New(b)
			ce := newDurableCoder(b, m, log)
			e := engine.New(engine.Config{Model: m, Checkpoints: store})
			approve := json.RawMessage(`{"approved":true}`)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				m.Append(modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", mustJSON(map[string]string{"code": factorialCode}))))
				_, err := e.Invoke(ctx, ce, "Calculate 15!")
				var ie *agent.InterruptedError
				require.ErrorAs(b, err, &ie)
				m.Append(modeltest.Func(answerFromToolResult))
				q := ie.Questions[0]
				b.StartTimer()
				res, err := e.ResumeInvoke(ctx, ce, q.Run, map[string]json.RawMessage{q.ID: approve})
				require.NoError(b, err)
				require.Equal(b, "15! = 1307674368000", res.Text())
			}
		})
	}
}
