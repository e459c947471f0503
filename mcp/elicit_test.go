package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
)

// bookingServer is an MCP server whose tool "book" asks for a name, then
// books: its side effect, counted whatever the answer, as a tool that
// treats a refusal as a choice does.
type bookingServer struct {
	url    string
	booked atomic.Int32
	failed chan error // the elicitation errors the tool saw
}

// withinLife is ctx, ended also when life ends: a test server's handler
// that waits for its client does not outlive the test.
func withinLife(ctx, life context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(life, cancel)
	return ctx, func() { stop(); cancel() }
}

func newBookingServer(t *testing.T) *bookingServer {
	t.Helper()
	b := &bookingServer{failed: make(chan error, 8)}
	life, end := context.WithCancel(context.Background())
	srv := sdk.NewServer(&sdk.Implementation{Name: "booking", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "book", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ctx, cancel := withinLife(ctx, life)
		defer cancel()
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{
			Message:         "Who is the booking for?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}},
		})
		if err != nil {
			b.failed <- err
			return nil, err
		}
		n := b.booked.Add(1)
		text := fmt.Sprintf("booking %d: %s", n, res.Action)
		if name, ok := res.Content["name"].(string); ok {
			text += " for " + name
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
	})
	srv.AddTool(&sdk.Tool{Name: "book-twice", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ctx, cancel := withinLife(ctx, life)
		defer cancel()
		var got []string
		for _, q := range []string{"Who is the booking for?", "Which day?"} {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: q,
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}}})
			if err != nil {
				b.failed <- err
				return nil, err
			}
			v, _ := res.Content["v"].(string)
			got = append(got, res.Action+" "+v)
		}
		n := b.booked.Add(1)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("booking %d: %s", n, strings.Join(got, ", "))}}}, nil
	})
	hs, _ := sdkHTTPServer(t, srv)
	b.url = hs.URL
	t.Cleanup(func() { // a killed client's session stays until closed
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	t.Cleanup(end) // a call of a killed client waits until then
	return b
}

func TestElicitationAnsweredByCallback(t *testing.T) {
	b := newBookingServer(t)
	var asked Elicitation
	ts := connect(t, Config{URL: b.url, Elicit: func(_ context.Context, e Elicitation) (ElicitAnswer, error) {
		asked = e
		return ElicitAnswer{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}})
	_, out, err := runTool(t, toolNamed(t, ts, "book"), `{}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"booking 1: accept for Ada"}`, string(out))
	require.Equal(t, int32(1), b.booked.Load())
	require.Equal(t, "book", asked.Tool)
	require.Equal(t, "Who is the booking for?", asked.Message)
	require.Contains(t, string(asked.Schema), `"name"`)
}

func TestElicitationCallbackErrorFailsTheRequest(t *testing.T) {
	b := newBookingServer(t)
	ts := connect(t, Config{URL: b.url, Elicit: func(context.Context, Elicitation) (ElicitAnswer, error) {
		return ElicitAnswer{}, errors.New("no terminal")
	}})
	_, _, err := runTool(t, toolNamed(t, ts, "book"), `{}`)
	require.ErrorContains(t, err, "no terminal")
	require.Error(t, <-b.failed, "the server saw an error, not a refusal")
	require.Zero(t, b.booked.Load())
}

// askBook runs the booking tool under e until it asks, and returns the
// question.
func askBook(t *testing.T, e *engine.Engine, tl agent.Agent) agent.Question {
	t.Helper()
	_, err := e.Invoke(context.Background(), tl, `{}`)
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Questions, 1)
	q := ie.Questions[0]
	require.Equal(t, ElicitationKind, q.Kind)
	return q
}

func TestElicitationRunsTheToolOnce(t *testing.T) {
	// The run stops to ask a person while the call stays open; resumed, it
	// answers in that call. The tool books once, with the answer.
	b := newBookingServer(t)
	ts := connect(t, Config{URL: b.url})
	tl := toolNamed(t, ts, "book")
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	q := askBook(t, e, tl)
	require.Zero(t, b.booked.Load(), "the tool went on before the person answered")

	res, err := e.ResumeInvoke(context.Background(), tl, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"booking 1: accept for Ada"}`, string(res.Output))
	require.Equal(t, int32(1), b.booked.Load())
	select {
	case err := <-b.failed:
		t.Fatalf("the server's request failed: %v", err)
	default:
	}
}

func TestElicitationTwoQuestionsInOneCall(t *testing.T) {
	// Each question stops the run; each resumption answers in the same
	// call, and the tool runs once with both answers.
	b := newBookingServer(t)
	ts := connect(t, Config{URL: b.url})
	tl := toolNamed(t, ts, "book-twice")
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	ctx := context.Background()
	q1 := askBook(t, e, tl)
	_, err := e.ResumeInvoke(ctx, tl, q1.Run, map[string]json.RawMessage{q1.ID: json.RawMessage(`{"action":"accept","content":{"v":"Ada"}}`)})
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	q2 := ie.Questions[0]
	require.NotEqual(t, q1.ID, q2.ID)
	var p Elicitation
	require.NoError(t, json.Unmarshal(q2.Payload, &p))
	require.Equal(t, "Which day?", p.Message)
	require.Zero(t, b.booked.Load())

	res, err := e.ResumeInvoke(ctx, tl, q2.Run, map[string]json.RawMessage{q2.ID: json.RawMessage(`{"action":"accept","content":{"v":"Monday"}}`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"booking 1: accept Ada, accept Monday"}`, string(res.Output))
	require.Equal(t, int32(1), b.booked.Load())
}

func TestElicitationUnansweredInTimeCallsAgain(t *testing.T) {
	// A run not resumed within AnswerTimeout fails the server's request
	// (the tool stops before its side effect); resumed later, the run calls
	// the tool again and answers its new request.
	b := newBookingServer(t)
	ts := connect(t, Config{URL: b.url, AnswerTimeout: time.Nanosecond})
	tl := toolNamed(t, ts, "book")
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	q := askBook(t, e, tl)
	require.Error(t, <-b.failed, "the server's request failed")

	res, err := e.ResumeInvoke(context.Background(), tl, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"booking 1: accept for Ada"}`, string(res.Output))
	require.Equal(t, int32(1), b.booked.Load())
}

func TestElicitationCloseFailsParkedRequest(t *testing.T) {
	b := newBookingServer(t)
	ts := connect(t, Config{URL: b.url})
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	askBook(t, e, toolNamed(t, ts, "book"))
	require.NoError(t, ts.Close())
	require.Error(t, <-b.failed)
	require.Zero(t, b.booked.Load())
}

// Environment of the child process of TestElicitationResumesAfterKill.
const (
	elicitChildEnv = "LOOM_MCP_ELICIT_CHILD" // "ask" or "resume"
	elicitURLEnv   = "LOOM_MCP_ELICIT_URL"
	elicitDBEnv    = "LOOM_MCP_ELICIT_DB"
	elicitRunEnv   = "LOOM_MCP_ELICIT_RUN"
	elicitQEnv     = "LOOM_MCP_ELICIT_QUESTION"
	elicitToolEnv  = "LOOM_MCP_ELICIT_TOOL"
	elicitAnsEnv   = "LOOM_MCP_ELICIT_ANSWER"
)

// elicitChild runs the child process's part when the test binary was
// started as one: "ask" runs the booking tool durably until it asks,
// prints the question and waits to be killed; "resume" resumes the run
// with an answer and prints the output.
func elicitChild() bool {
	mode := os.Getenv(elicitChildEnv)
	if mode == "" {
		return false
	}
	if err := runElicitChild(mode); err != nil {
		_, _ = os.Stderr.WriteString("elicit child: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

func runElicitChild(mode string) error {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlite.Config{Path: os.Getenv(elicitDBEnv)})
	if err != nil {
		return err
	}
	defer store.Close()
	name := os.Getenv(elicitToolEnv)
	ts, err := Connect(ctx, Config{URL: os.Getenv(elicitURLEnv), Filter: func(n string) bool { return n == name }})
	if err != nil {
		return err
	}
	defer ts.Close()
	var tools []agent.Agent
	for range 300 { // server-everything adds its elicitation tool after the session starts
		if tools, err = ts.Tools(ctx); err != nil || len(tools) == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	if len(tools) != 1 {
		return fmt.Errorf("want the one tool %s, got %d tools", name, len(tools))
	}
	e := engine.New(engine.Config{Checkpoints: store})
	if mode == "ask" {
		_, err := e.Invoke(ctx, tools[0], `{}`)
		var ie *agent.InterruptedError
		if !errors.As(err, &ie) {
			return fmt.Errorf("want the run to ask, got %v", err)
		}
		b, _ := json.Marshal(ie.Questions[0])
		fmt.Println(string(b))
		select {} // the parent kills this process while the call is open
	}
	res, err := e.ResumeInvoke(ctx, tools[0], os.Getenv(elicitRunEnv), map[string]json.RawMessage{
		os.Getenv(elicitQEnv): json.RawMessage(os.Getenv(elicitAnsEnv)),
	})
	if err != nil {
		return err
	}
	fmt.Println(string(res.Output))
	return nil
}

// killAndResume runs tool at url durably in a child process until it
// asks, kills that process while the call is open, and resumes the run in
// another child with answer; it returns what the run output.
func killAndResume(t *testing.T, url, tool, answer string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "runs.db")
	env := append(os.Environ(), elicitURLEnv+"="+url, elicitDBEnv+"="+db, elicitToolEnv+"="+tool, elicitAnsEnv+"="+answer)

	asker := exec.Command(os.Args[0], "-test.run=^$")
	asker.Env = append(env, elicitChildEnv+"=ask")
	asker.Stderr = os.Stderr
	stdout, err := asker.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, asker.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the asking child printed no question")
	var q agent.Question
	require.NoError(t, json.Unmarshal([]byte(line), &q))
	require.Equal(t, ElicitationKind, q.Kind)
	require.NoError(t, asker.Process.Kill())
	_ = asker.Wait()

	resumer := exec.Command(os.Args[0], "-test.run=^$")
	resumer.Env = append(env, elicitChildEnv+"=resume", elicitRunEnv+"="+q.Run, elicitQEnv+"="+q.ID)
	resumer.Stderr = os.Stderr
	out, err := resumer.Output()
	require.NoError(t, err)
	return string(out)
}

func TestElicitationResumesAfterKill(t *testing.T) {
	// A durable run asks, its process is killed while the call is open, and
	// another process resumes it with the answer: the tool books once.
	b := newBookingServer(t)
	out := killAndResume(t, b.url, "book", `{"action":"accept","content":{"name":"Ada"}}`)
	require.JSONEq(t, `{"message":"booking 1: accept for Ada"}`, out)
	require.Equal(t, int32(1), b.booked.Load())
}

func TestEverythingElicitationResumesAfterKill(t *testing.T) {
	// The same with server-everything's elicitation tool: the resumed run
	// gives the server the answer its killed process was asked for.
	out := killAndResume(t, startHTTP(t).url(), "trigger-elicitation-request", `{"action":"accept","content":{"name":"Ada Lovelace","check":true}}`)
	require.Contains(t, out, "Name: Ada Lovelace")
	require.Contains(t, out, "Agreed to terms: true")
}
