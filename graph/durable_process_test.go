package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/postgres"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

// The environment of a child process of TestGraphSurvivesKills.
const (
	envPhase   = "LOOM_GRAPH_PHASE"    // start, resume or pending
	envFlow    = "LOOM_GRAPH_WORKLOAD" // approvals, coder or loop
	envStore   = "LOOM_GRAPH_STORE"    // sqlite or postgres
	envWhere   = "LOOM_GRAPH_DB"       // the SQLite file or the PostgreSQL DSN
	envDir     = "LOOM_GRAPH_DIR"      // where effects are logged
	envRun     = "LOOM_GRAPH_RUN"      // the run id
	envAnswers = "LOOM_GRAPH_ANSWERS"  // a JSON object of answers
	envBlock   = "LOOM_GRAPH_BLOCK"    // a node that blocks after its effect
	envKill    = "LOOM_GRAPH_KILL"     // "before" or "after": block around the write of a snapshot
)

// killAtSnapshot blocks, to be killed, just before or just after it saves
// a checkpoint that holds the engine's snapshot of the run (the one an
// interrupt saves).
type killAtSnapshot struct {
	checkpoint.Store
	when string
}

func (k killAtSnapshot) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	if k.when == "" || !strings.Contains(string(cp.State), `"snapshot":`) {
		return k.Store.Put(ctx, cp)
	}
	if k.when == "before" {
		fmt.Println("BLOCKED before the snapshot")
		select {}
	}
	if err := k.Store.Put(ctx, cp); err != nil {
		return err
	}
	fmt.Println("BLOCKED after the snapshot")
	select {}
}

// logLine appends line to the file name in dir: effects that must add up
// over processes.
func logLine(dir, name, line string) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(line + "\n")
	return err
}

func readLog(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(b)
}

// effectNode does its effect once (graph.Once), then blocks to be killed
// when it is the node named by LOOM_GRAPH_BLOCK.
func effectNode(dir, name string) func(context.Context, st) (st, error) {
	return func(ctx context.Context, s st) (st, error) {
		if _, err := graph.Once(ctx, name, func(context.Context) (bool, error) { return true, logLine(dir, "effects", name) }); err != nil {
			return s, err
		}
		if os.Getenv(envBlock) == name {
			fmt.Println("BLOCKED " + name)
			select {}
		}
		s.Log = append(s.Log, name)
		return s, nil
	}
}

// approvalsGraph charges, asks twice, then ships.
func approvalsGraph(t *testing.T, dir string) agent.Agent {
	g := graph.New[st](graph.Config{Name: "order"}).Reducer("log", graph.Append()).
		Node("charge", effectNode(dir, "charge"))
	askNode(g, "first")
	askNode(g, "second")
	g.Node("ship", effectNode(dir, "ship")).
		Edge(graph.START, "charge").Edge("charge", "first").Edge("first", "second").Edge("second", "ship").Edge("ship", graph.END)
	return compile(t, g)
}

// loggedModel logs each model call to a file, so calls made in several
// processes add up.
type loggedModel struct {
	model.Model
	dir string
}

func (l loggedModel) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	_ = logLine(l.dir, "model", "call")
	return l.Model.Stream(ctx, req)
}

// countingExec logs each sandbox run.
type countingExec struct {
	sandbox.Executor
	dir string
}

func (c countingExec) Run(ctx context.Context, code string) (*sandbox.Result, error) {
	if err := logLine(c.dir, "sandbox", "run"); err != nil {
		return nil, err
	}
	return c.Executor.Run(ctx, code)
}

const factorialCode = "let f = 1; for (let i = 2; i <= 15; i++) f *= i; f"

// coderGraph has a Coder→Sandbox node whose approver leaves every snippet
// to a person, then a node that reports its answer.
func coderGraph(t *testing.T, dir string, m model.Model) agent.Agent {
	inproc, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = inproc.Close() })
	pending := codeexec.ApproverFunc(func(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
		return codeexec.Approval{}, codeexec.ErrPending
	})
	ce, err := codeexec.New(codeexec.Config{Model: loggedModel{m, dir}, Sandbox: countingExec{inproc, dir}, Approver: pending})
	require.NoError(t, err)
	g := graph.New[st](graph.Config{Name: "solve"}).Reducer("log", graph.Append()).
		AgentNode("code", ce, func(s st) (any, error) { return s.Topic, nil }, func(s st, out json.RawMessage) (st, error) {
			var o map[string]any
			err := json.Unmarshal(out, &o)
			s.Out = fmt.Sprint(o["message"])
			return s, err
		}).
		Node("report", effectNode(dir, "report")).
		Edge(graph.START, "code").Edge("code", "report").Edge("report", graph.END)
	return compile(t, g)
}

// answerFromToolResult is the coder's turn after the sandbox ran: it
// reports the value the sandbox computed.
func answerFromToolResult(req model.Request) modeltest.Turn {
	results := req.Messages[len(req.Messages)-1].ToolResults()
	if len(results) != 1 || results[0].IsError {
		return modeltest.Text(fmt.Sprintf("unexpected tool result: %+v", results))
	}
	var out struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(results[0].Content, &out)
	return modeltest.Text("15! = " + string(out.Result))
}

func openStore(t *testing.T, kind, where string) checkpoint.Store {
	t.Helper()
	var s checkpoint.Store
	var err error
	if kind == "postgres" {
		s, err = postgres.Open(context.Background(), postgres.Config{DSN: where})
	} else {
		s, err = sqlite.Open(context.Background(), sqlite.Config{Path: where})
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestGraphDurableChild is the child process of TestGraphSurvivesKills.
func TestGraphDurableChild(t *testing.T) {
	phase := os.Getenv(envPhase)
	if phase == "" {
		t.Skip("run by TestGraphSurvivesKills in a child process")
	}
	ctx := context.Background()
	dir, runID := os.Getenv(envDir), os.Getenv(envRun)
	e := engine.New(engine.Config{Checkpoints: killAtSnapshot{openStore(t, os.Getenv(envStore), os.Getenv(envWhere)), os.Getenv(envKill)}})
	if phase == "pending" {
		qs, err := e.Pending(ctx, runID)
		require.NoError(t, err)
		ids := []string{}
		for _, q := range qs {
			ids = append(ids, q.Kind+"="+q.ID)
		}
		fmt.Println("PENDING " + strings.Join(ids, ","))
		return
	}
	var a agent.Agent
	switch os.Getenv(envFlow) {
	case "approvals":
		a = approvalsGraph(t, dir)
	case "loop":
		a = askLoopGraph(t, 6, effectNode(dir, "work"))
	case "coder":
		m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":`+mustQuote(factorialCode)+`}`)))
		if phase == "resume" {
			m = modeltest.New(t, modeltest.Func(answerFromToolResult))
		}
		a = coderGraph(t, dir, m)
	}
	var res *engine.Result
	var err error
	if phase == "start" {
		res, err = e.Invoke(agentrt.WithIDs(ctx, func() string { return runID }), a, st{Topic: "Calculate 15!"})
	} else {
		var answers map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(os.Getenv(envAnswers)), &answers))
		res, err = e.ResumeInvoke(ctx, a, runID, answers)
	}
	if ie := agentrt.Interrupts(err); ie != nil {
		ids := []string{}
		for _, q := range ie.Questions {
			ids = append(ids, q.Kind+"="+q.ID)
		}
		fmt.Println("WAIT " + strings.Join(ids, ","))
		select {} // a server waiting for its approver: killed
	}
	if errors.Is(err, graph.ErrStepLimit) {
		fmt.Println("LIMIT " + err.Error())
		return
	}
	require.NoError(t, err)
	fmt.Println("DONE " + string(res.Output))
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// durableStores are the stores the process tests run on: SQLite, and
// PostgreSQL when LOOM_TEST_POSTGRES_DSN is set (under CI it must be).
func durableStores(t *testing.T) []struct{ kind, where string } {
	out := []struct{ kind, where string }{{"sqlite", filepath.Join(t.TempDir(), "runs.db")}}
	if dsn := postgresDSN(t); dsn != "" {
		out = append(out, struct{ kind, where string }{"postgres", dsn})
	} else {
		t.Log("PostgreSQL not tested: LOOM_TEST_POSTGRES_DSN is not set")
	}
	return out
}

// step is one process of a scenario: its phase, its answers (question
// number → answer), the node it blocks in, and the line it must print
// (LIMIT: the run ended at its step limit).
type step struct {
	phase   string
	answers map[int]string
	block   string
	kill    string // "before" or "after": killed around the write of a snapshot
	want    string // the prefix of the line it prints: WAIT, BLOCKED, DONE, LIMIT or PENDING
	check   func(t *testing.T, line string, asked []string)
}

// TestGraphSurvivesKills runs graphs under a durable engine in child
// processes killed with SIGKILL while waiting for an answer, inside a
// node, and just before or after the engine saves a snapshot of the run
// (with the interrupt checkpoint), each resumed in a new process: Engine.Pending lists what the run
// waits for after each answer (and nothing when it waits for none), the
// final answer is right, and no effect, model call or sandbox run is
// repeated.
func TestGraphSurvivesKills(t *testing.T) {
	pending := func(want ...int) func(t *testing.T, line string, asked []string) {
		return func(t *testing.T, line string, asked []string) {
			var ids []string
			for _, n := range want {
				ids = append(ids, asked[n])
			}
			require.Equal(t, strings.TrimSpace("PENDING "+strings.Join(ids, ",")), line, "Engine.Pending lists the question the run waits for")
		}
	}
	cases := []struct {
		name     string
		workload string
		steps    []step
		check    func(t *testing.T, dir, out string)
	}{
		{
			name: "two human nodes, killed while waiting at each", workload: "approvals",
			steps: []step{
				{phase: "start", want: "WAIT"},
				{phase: "pending", want: "PENDING", check: pending(0)},
				{phase: "resume", answers: map[int]string{0: `{"ok":true}`}, want: "WAIT"},
				{phase: "pending", want: "PENDING", check: pending(1)},
				{phase: "resume", answers: map[int]string{1: `{"ok":false}`}, want: "DONE"},
				{phase: "pending", want: "PENDING", check: pending()},
			},
			check: func(t *testing.T, dir, out string) {
				require.JSONEq(t, `{"topic":"Calculate 15!","log":["charge","first=true","second=false","ship"],"count":0}`, out)
				require.Equal(t, "charge\nship\n", readLog(t, dir, "effects"))
			},
		},
		{
			name: "killed inside the last node after its effect", workload: "approvals",
			steps: []step{
				{phase: "start", want: "WAIT"},
				{phase: "resume", answers: map[int]string{0: `{"ok":true}`}, want: "WAIT"},
				{phase: "resume", answers: map[int]string{1: `{"ok":true}`}, block: "ship", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending()},
				{phase: "resume", want: "DONE"},
			},
			check: func(t *testing.T, dir, out string) {
				require.JSONEq(t, `{"topic":"Calculate 15!","log":["charge","first=true","second=true","ship"],"count":0}`, out)
				require.Equal(t, "charge\nship\n", readLog(t, dir, "effects"), "the effect done before the kill was not repeated")
			},
		},
		{
			name: "killed just before the snapshot at the first question", workload: "approvals",
			steps: []step{
				{phase: "start", kill: "before", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending(0)},
				{phase: "resume", answers: map[int]string{0: `{"ok":true}`}, want: "WAIT"},
				{phase: "resume", answers: map[int]string{1: `{"ok":true}`}, want: "DONE"},
			},
			check: func(t *testing.T, dir, out string) {
				require.JSONEq(t, `{"topic":"Calculate 15!","log":["charge","first=true","second=true","ship"],"count":0}`, out)
				require.Equal(t, "charge\nship\n", readLog(t, dir, "effects"))
			},
		},
		{
			name: "killed just before the snapshot at the second question", workload: "approvals",
			steps: []step{
				{phase: "start", want: "WAIT"},
				{phase: "resume", answers: map[int]string{0: `{"ok":true}`}, kill: "before", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending(1)},
				{phase: "resume", want: "WAIT", check: func(t *testing.T, line string, asked []string) {
					require.Equal(t, "WAIT "+asked[1], line, "resumed without an answer, the run asks the same question again")
				}},
				{phase: "pending", want: "PENDING", check: pending(1)},
				{phase: "resume", answers: map[int]string{1: `{"ok":false}`}, want: "DONE"},
			},
			check: func(t *testing.T, dir, out string) {
				require.JSONEq(t, `{"topic":"Calculate 15!","log":["charge","first=true","second=false","ship"],"count":0}`, out)
				require.Equal(t, "charge\nship\n", readLog(t, dir, "effects"))
			},
		},
		{
			name: "killed just after the snapshot at each question", workload: "approvals",
			steps: []step{
				{phase: "start", kill: "after", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending(0)},
				{phase: "resume", answers: map[int]string{0: `{"ok":true}`}, kill: "after", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending(1)},
				{phase: "resume", answers: map[int]string{1: `{"ok":true}`}, want: "DONE"},
				{phase: "pending", want: "PENDING", check: pending()},
			},
			check: func(t *testing.T, dir, out string) {
				require.JSONEq(t, `{"topic":"Calculate 15!","log":["charge","first=true","second=true","ship"],"count":0}`, out)
				require.Equal(t, "charge\nship\n", readLog(t, dir, "effects"))
			},
		},
		{
			name: "a Coder→Sandbox node killed just after the snapshot of its approval", workload: "coder",
			steps: []step{
				{phase: "start", kill: "after", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: func(t *testing.T, line string, asked []string) {
					require.True(t, strings.HasPrefix(line, "PENDING "+codeexec.ApprovalKind+"="), line)
				}},
				{phase: "resume", answers: map[int]string{0: `{"approved":true}`}, want: "DONE"},
			},
			check: func(t *testing.T, dir, out string) {
				var s st
				require.NoError(t, json.Unmarshal([]byte(out), &s))
				require.Equal(t, "15! = 1307674368000", s.Out)
				require.Equal(t, "call\ncall\n", readLog(t, dir, "model"), "none repeated")
				require.Equal(t, "run\n", readLog(t, dir, "sandbox"), "the approved code ran once")
				require.Equal(t, "report\n", readLog(t, dir, "effects"))
			},
		},
		{
			name: "a Coder→Sandbox node approved across a kill", workload: "coder",
			steps: []step{
				{phase: "start", want: "WAIT", check: func(t *testing.T, line string, _ []string) {
					require.True(t, strings.HasPrefix(line, "WAIT "+codeexec.ApprovalKind+"="), line)
				}},
				{phase: "pending", want: "PENDING", check: pending(0)},
				{phase: "resume", answers: map[int]string{0: `{"approved":true}`}, want: "DONE"},
			},
			check: func(t *testing.T, dir, out string) {
				var s st
				require.NoError(t, json.Unmarshal([]byte(out), &s))
				require.Equal(t, "15! = 1307674368000", s.Out)
				require.Equal(t, []string{"report"}, s.Log)
				require.Equal(t, "call\ncall\n", readLog(t, dir, "model"), "one call before the approval, one after: none repeated")
				require.Equal(t, "run\n", readLog(t, dir, "sandbox"), "the approved code ran once")
				require.Equal(t, "report\n", readLog(t, dir, "effects"))
			},
		},
		{
			name: "a Coder→Sandbox node approved, then killed in the next node", workload: "coder",
			steps: []step{
				{phase: "start", want: "WAIT"},
				{phase: "resume", answers: map[int]string{0: `{"approved":true}`}, block: "report", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending()},
				{phase: "resume", want: "DONE"},
			},
			check: func(t *testing.T, dir, out string) {
				var s st
				require.NoError(t, json.Unmarshal([]byte(out), &s))
				require.Equal(t, "15! = 1307674368000", s.Out)
				require.Equal(t, "call\ncall\n", readLog(t, dir, "model"), "the coder's calls were replayed after the kill")
				require.Equal(t, "run\n", readLog(t, dir, "sandbox"))
				require.Equal(t, "report\n", readLog(t, dir, "effects"), "the report's effect was done once")
			},
		},
		{
			name: "a graph that keeps asking, killed around its asks, stops at its step limit", workload: "loop",
			steps: []step{
				{phase: "start", want: "WAIT"},
				{phase: "resume", answers: map[int]string{0: `{"ok":true}`}, kill: "after", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending(1)},
				{phase: "resume", answers: map[int]string{1: `{"ok":true}`}, kill: "before", want: "BLOCKED"},
				{phase: "pending", want: "PENDING", check: pending(2)},
				{phase: "resume", answers: map[int]string{2: `{"ok":true}`}, want: "LIMIT", check: func(t *testing.T, line string, _ []string) {
					require.Contains(t, line, "6 steps ran since the run started, the limit is 6", "the steps of every process count")
					require.Contains(t, line, `looping nodes: "ask" (3 runs), "work" (3 runs)`)
				}},
				{phase: "pending", want: "PENDING", check: pending()},
			},
			check: func(t *testing.T, dir, _ string) {
				require.Equal(t, "work\nwork\nwork\n", readLog(t, dir, "effects"), "each run of work did its effect once")
			},
		},
	}
	for _, store := range durableStores(t) {
		for i, tc := range cases {
			t.Run(store.kind+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				// New to the store: a PostgreSQL database outlives the test.
				runID := fmt.Sprintf("g%d%016x", i, rand.Uint64())
				env := []string{envFlow + "=" + tc.workload, envStore + "=" + store.kind, envWhere + "=" + store.where, envDir + "=" + dir, envRun + "=" + runID}
				var asked []string // every question asked so far, in order
				var out string
				for _, s := range tc.steps {
					answers := map[string]json.RawMessage{}
					for n, a := range s.answers {
						answers[strings.SplitN(asked[n], "=", 2)[1]] = json.RawMessage(a)
					}
					raw, _ := json.Marshal(answers)
					cmd := testkit.Child("TestGraphDurableChild", append(env, envPhase+"="+s.phase, envAnswers+"="+string(raw), envBlock+"="+s.block, envKill+"="+s.kill)...)
					line := runChild(t, cmd, s.want)
					switch s.want {
					case "WAIT", "PENDING":
						for _, q := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(line, "WAIT "), "PENDING "), ",") {
							if q != "" && q != "PENDING" && !contains(asked, q) {
								asked = append(asked, q)
							}
						}
					case "DONE":
						out = strings.TrimPrefix(line, "DONE ")
					}
					if s.check != nil {
						s.check(t, line, asked)
					}
				}
				tc.check(t, dir, out)
			})
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// runChild runs cmd until it prints a line starting with want; a child
// that then waits (WAIT, BLOCKED) is killed with SIGKILL.
func runChild(t *testing.T, cmd *exec.Cmd, want string) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line := testkit.LineWith(t, io.TeeReader(out, os.Stderr), want)
	if want == "WAIT" || want == "BLOCKED" {
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
		return line
	}
	require.NoError(t, cmd.Wait())
	return line
}
