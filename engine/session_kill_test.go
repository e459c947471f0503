package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/postgres"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// durableStores lists the stores the child-process session tests run on:
// SQLite in a file of dir, and PostgreSQL when LOOM_TEST_POSTGRES_DSN is
// set (CI sets it; without it under CI the test fails).
func durableStores(t *testing.T) []struct{ kind, where string } {
	stores := []struct{ kind, where string }{{"sqlite", filepath.Join(t.TempDir(), "loom.db")}}
	if dsn := os.Getenv("LOOM_TEST_POSTGRES_DSN"); dsn != "" {
		stores = append(stores, struct{ kind, where string }{"postgres", dsn})
	} else if os.Getenv("CI") == "true" {
		t.Fatal("LOOM_TEST_POSTGRES_DSN is unset under CI: .ci/postgres.sh must start PostgreSQL")
	}
	return stores
}

// openDurable opens the checkpoint and session stores of kind at where.
func openDurable(t *testing.T, kind, where string) (checkpoint.Store, checkpoint.SessionStore) {
	t.Helper()
	ctx := context.Background()
	var runs checkpoint.Store
	var sessions checkpoint.SessionStore
	var err error
	switch kind {
	case "postgres":
		runs, err = postgres.Open(ctx, postgres.Config{DSN: where})
		require.NoError(t, err)
		sessions, err = postgres.OpenSessions(ctx, postgres.Config{DSN: where})
	default:
		runs, err = sqlite.Open(ctx, sqlite.Config{Path: where})
		require.NoError(t, err)
		sessions, err = sqlite.OpenSessions(ctx, sqlite.Config{Path: where})
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = runs.Close(); _ = sessions.Close() })
	return runs, sessions
}

// appendLine appends line to the file at path, so counts add up across
// processes.
func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line + "\n")
	_ = f.Close()
}

func countLines(t *testing.T, path, line string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), line+"\n")
}

// storedTurns returns the run ids of the turns recorded in session id, in
// order (the open-turn marks left out).
func storedTurns(t *testing.T, sessions checkpoint.SessionStore, id string) []string {
	t.Helper()
	raws, err := sessions.Load(context.Background(), id)
	require.NoError(t, err)
	var runs []string
	for _, raw := range raws {
		var rec struct {
			Run  string          `json:"run"`
			Open json.RawMessage `json:"open"`
		}
		require.NoError(t, json.Unmarshal(raw, &rec))
		if rec.Open == nil {
			runs = append(runs, rec.Run)
		}
	}
	return runs
}

// TestSessionApprovalChild is the child process of
// TestSessionApprovalInASecondProcess.
func TestSessionApprovalChild(t *testing.T) {
	phase := os.Getenv("LOOM_SA_PHASE")
	if phase == "" {
		t.Skip("run by TestSessionApprovalInASecondProcess in a child process")
	}
	ctx := context.Background()
	runs, sessions := openDurable(t, os.Getenv("LOOM_SA_STORE"), os.Getenv("LOOM_SA_DB"))
	effects := os.Getenv("LOOM_SA_EFFECTS")
	if when := os.Getenv("LOOM_SA_KILL"); when != "" && phase == "ask" {
		runs = killAtSnapshot{runs, when}
	}
	e := engine.New(engine.Config{Checkpoints: runs, Sessions: sessions})
	var m *modeltest.Scripted
	switch phase {
	case "ask":
		m = modeltest.New(t, expect(turn1, "Hello Ada."), modeltest.ToolCalls(modeltest.Call("c1", "deploy", `{"env":"prod"}`)))
	case "approve":
		m = modeltest.New(t, expect(after, "Deployed, Ada."), expect(turn3, "I deployed to prod."))
	}
	s, err := e.OpenSession(os.Getenv("LOOM_SA_SESSION"), deployerWith(t, m, func() { appendLine(effects, "deploy") }))
	require.NoError(t, err)
	switch phase {
	case "ask":
		res, err := s.Invoke(ctx, "My name is Ada.")
		require.NoError(t, err)
		require.Equal(t, "Hello Ada.", res.Text())
		_, err = s.Invoke(ctx, "Deploy to prod.")
		var ie *agent.InterruptedError
		require.ErrorAs(t, err, &ie)
		fmt.Printf("RUN %s\n", ie.Questions[0].Run)
		select {} // alive and paused until killed
	case "approve":
		runID := os.Getenv("LOOM_SA_RUN")
		pending, err := e.Pending(ctx, runID)
		require.NoError(t, err)
		require.Len(t, pending, 1)
		res, err := s.ResumeInvoke(ctx, runID, map[string]json.RawMessage{pending[0].ID: json.RawMessage(`true`)})
		require.NoError(t, err)
		next, err := s.Invoke(ctx, "What did you do?")
		require.NoError(t, err)
		fmt.Printf("ANSWER %s | %s | calls=%d\n", res.Text(), next.Text(), m.Calls())
	}
}

// killAtSnapshot prints the run's id and blocks, to be killed, just
// before or just after it saves a checkpoint holding the engine's snapshot
// of the run (the one an interrupt saves).
type killAtSnapshot struct {
	checkpoint.Store
	when string
}

func (k killAtSnapshot) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	if !strings.Contains(string(cp.State), `"snapshot":`) {
		return k.Store.Put(ctx, cp)
	}
	if k.when == "after" {
		if err := k.Store.Put(ctx, cp); err != nil {
			return err
		}
	}
	fmt.Printf("RUN %s\n", cp.RunID)
	select {}
}

// TestSessionApprovalInASecondProcess: a session's turn stops for an
// approval in one process, which stays alive, or is killed just before or
// just after it saves the snapshot of the waiting run; a second process
// approves it through the session, the model after the approval sees the
// whole conversation, the turn is recorded once, and the next turn sees
// every message. On SQLite and PostgreSQL.
func TestSessionApprovalInASecondProcess(t *testing.T) {
	for _, st := range durableStores(t) {
		for _, kill := range []string{"", "before", "after"} {
			name := st.kind
			if kill != "" {
				name += "/killed " + kill + " the snapshot"
			}
			t.Run(name, func(t *testing.T) {
				testSessionApproval(t, st.kind, st.where, kill)
			})
		}
	}
}

func testSessionApproval(t *testing.T, kind, where, kill string) {
	dir := t.TempDir()
	session := fmt.Sprintf("approval-%x", rand.Uint64())
	env := []string{"LOOM_SA_STORE=" + kind, "LOOM_SA_DB=" + where, "LOOM_SA_SESSION=" + session, "LOOM_SA_EFFECTS=" + filepath.Join(dir, "effects")}
	first := testkit.Child("TestSessionApprovalChild", append(env, "LOOM_SA_PHASE=ask", "LOOM_SA_KILL="+kill)...)
	out, err := first.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
	runID := strings.TrimPrefix(testkit.LineWith(t, out, "RUN "), "RUN ")
	if kill != "" {
		require.NoError(t, first.Process.Signal(syscall.SIGKILL))
		_ = first.Wait()
	}

	res, err := testkit.Child("TestSessionApprovalChild", append(env, "LOOM_SA_PHASE=approve", "LOOM_SA_RUN="+runID)...).Output()
	require.NoError(t, err, string(res))
	require.Contains(t, string(res), "ANSWER Deployed, Ada. | I deployed to prod. | calls=2", "each model call saw the whole conversation (else it answers \"wrong history\")")
	require.Equal(t, 1, countLines(t, filepath.Join(dir, "effects"), "deploy"))
	_, sessions := openDurable(t, kind, where)
	turns := storedTurns(t, sessions, session)
	require.Len(t, turns, 3)
	require.Equal(t, runID, turns[1], "the approved turn is recorded once, as itself")
}

// workResponder answers the conversation of TestSessionKilledTurnContinues
// by its last message, checking that the model sees every earlier message.
func workResponder(req model.Request) modeltest.Turn {
	got := transcript(req)
	setup := []string{"system: Be brief.", "user: My name is Ada."}
	work := append(append([]string{}, setup...), "assistant: Hello Ada.", "user: Do the work.")
	worked := append(append([]string{}, work...), "assistant: [call work]", `tool: [result work {"done":true}]`)
	final := append(append([]string{}, worked...), "assistant: Work done, Ada.", "user: What is my name?")
	for _, c := range []struct {
		want []string
		turn modeltest.Turn
	}{
		{setup, modeltest.Text("Hello Ada.")},
		{work, modeltest.ToolCalls(modeltest.Call("w1", "work", `{}`))},
		{worked, modeltest.Text("Work done, Ada.")},
		{final, modeltest.Text("Your name is Ada.")},
	} {
		if fmt.Sprint(got) == fmt.Sprint(c.want) {
			return c.turn
		}
	}
	return modeltest.Text(fmt.Sprintf("wrong history: %q", got))
}

// TestSessionKillChild is the child process of TestSessionKilledTurnContinues.
func TestSessionKillChild(t *testing.T) {
	phase := os.Getenv("LOOM_SK_PHASE")
	if phase == "" {
		t.Skip("run by TestSessionKilledTurnContinues in a child process")
	}
	ctx := context.Background()
	runs, sessions := openDurable(t, os.Getenv("LOOM_SK_STORE"), os.Getenv("LOOM_SK_DB"))
	log := os.Getenv("LOOM_SK_LOG")
	turns := make([]modeltest.Turn, 8)
	for i := range turns {
		turns[i] = modeltest.Func(workResponder)
	}
	m := loggedModel{modeltest.New(t, turns...), log}
	work := testkit.Fn(t, "work", func(context.Context, map[string]any) (map[string]any, error) {
		appendLine(log, "work")
		return map[string]any{"done": true}, nil
	})
	e := engine.New(engine.Config{Checkpoints: runs, Sessions: sessions})
	s, err := e.OpenSession(os.Getenv("LOOM_SK_SESSION"), testkit.NewAI(t, agent.AIConfig{Name: "worker", Instructions: "Be brief.", Model: m, Tools: []agent.Agent{work}}))
	require.NoError(t, err)
	switch phase {
	case "turn":
		res, err := s.Invoke(ctx, "My name is Ada.")
		require.NoError(t, err)
		require.Equal(t, "Hello Ada.", res.Text())
		fmt.Println("READY")
		res, err = s.Invoke(ctx, "Do the work.")
		require.NoError(t, err)
		fmt.Printf("DONE %s\n", res.Text())
		select {} // killed at some point, maybe after the turn
	case "continue":
		// What a caller does after a crash: finish the open turn, or, when
		// none is open and the turn is not recorded, send it again.
		res, err := s.Continue(ctx)
		if errors.Is(err, engine.ErrNoOpenTurn) {
			msgs, merr := s.Memory().Messages(ctx, nil)
			require.NoError(t, merr)
			if len(msgs) > 2 {
				res, err = &engine.Result{Output: json.RawMessage(fmt.Sprintf(`{"message":%q}`, msgs[len(msgs)-1].Text()))}, nil
			} else {
				res, err = s.Invoke(ctx, "Do the work.")
			}
		}
		require.NoError(t, err)
		next, err := s.Invoke(ctx, "What is my name?")
		require.NoError(t, err)
		fmt.Printf("ANSWER %s | %s\n", res.Text(), next.Text())
	}
}

// TestSessionKilledTurnContinues kills a process at a random moment of a
// session's two-step turn (model, tool, model) and finishes the turn in a
// new process: the answers are right, the next turn sees every message,
// the session holds each turn once, every run of the session has ended,
// and no model call or tool run is repeated except one that had started
// and not ended. On SQLite and PostgreSQL.
func TestSessionKilledTurnContinues(t *testing.T) {
	const trials = 6
	for _, st := range durableStores(t) {
		t.Run(st.kind, func(t *testing.T) {
			for trial := range trials {
				dir := t.TempDir()
				session := fmt.Sprintf("kill-%x", rand.Uint64())
				log := filepath.Join(dir, "log")
				env := []string{"LOOM_SK_STORE=" + st.kind, "LOOM_SK_DB=" + st.where, "LOOM_SK_SESSION=" + session, "LOOM_SK_LOG=" + log}
				first := testkit.Child("TestSessionKillChild", append(env, "LOOM_SK_PHASE=turn")...)
				out, err := first.StdoutPipe()
				require.NoError(t, err)
				require.NoError(t, first.Start())
				testkit.LineWith(t, out, "READY")
				time.Sleep(rand.N(40 * time.Millisecond)) // a random moment of the turn, or after it
				require.NoError(t, first.Process.Signal(syscall.SIGKILL))
				_ = first.Wait()
				calls, works := countLines(t, log, "call"), countLines(t, log, "work")

				res, err := testkit.Child("TestSessionKillChild", append(env, "LOOM_SK_PHASE=continue")...).Output()
				require.NoError(t, err, "trial %d: %s", trial, res)
				require.Contains(t, string(res), "ANSWER Work done, Ada. | Your name is Ada.", "trial %d", trial)

				runs, sessions := openDurable(t, st.kind, st.where)
				turns := storedTurns(t, sessions, session)
				require.Len(t, turns, 3, "trial %d: each turn once", trial)
				for _, id := range turns {
					head, err := runs.Head(t.Context(), id)
					require.NoError(t, err)
					require.Equal(t, engine.CheckpointEnd, head.Kind, "trial %d: run %s ended", trial, id)
				}
				// Before the kill: 1 call for the first turn, up to 2 for
				// the second and up to 1 work. Afterwards: 3 calls and 1
				// work in all, plus at most the one step the kill cut.
				totalCalls, totalWorks := countLines(t, log, "call"), countLines(t, log, "work")
				t.Logf("trial %d: killed after %d model calls and %d tool runs; %d and %d in all", trial, calls, works, totalCalls, totalWorks)
				require.LessOrEqual(t, totalCalls, 4+1, "trial %d: calls %d before the kill", trial, calls)
				require.LessOrEqual(t, totalWorks, 2, "trial %d: works %d before the kill", trial, works)
				require.GreaterOrEqual(t, totalWorks, 1)
				require.LessOrEqual(t, (totalCalls-4)+(totalWorks-1), 1, "trial %d: at most one repeated step", trial)
			}
		})
	}
}
