package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/codeexec"
	lt "github.com/loomwork/loom/temporal"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"
)

// CLIEnv names the Temporal CLI binary the integration test starts as a
// dev server (.ci/temporal.sh builds it).
const CLIEnv = "LOOM_TEMPORAL_CLI"

// RecordEnv, when set, names the file the integration test writes the
// run's history to, for the replay test's testdata.
const RecordEnv = "LOOM_TEMPORAL_RECORD"

// integrationID is the workflow id of the integration test's run.
const integrationID = "coder-integration"

// workerEnv makes the test binary a worker process (TestWorkerProcess).
const workerEnv = "LOOM_CODER_WORKER"

// TestWorkerProcess is the worker process the integration test starts and
// kills; it does nothing in a normal test run.
func TestWorkerProcess(t *testing.T) {
	if os.Getenv(workerEnv) == "" {
		t.Skip("a helper process of TestDevServerKillsAndRestarts")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := run(ctx, []string{"worker"}, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// devServer is a Temporal dev server process on a fixed port and database.
type devServer struct {
	bin, db    string
	port, http int
	metrics    int
	cmd        *exec.Cmd
}

func (s *devServer) start(t testing.TB) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", strconv.Itoa(s.port), "--http-port", strconv.Itoa(s.http), "--metrics-port", strconv.Itoa(s.metrics),
		"--db-filename", s.db, "--log-level", "error")
	s.cmd.Stdout, s.cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, s.cmd.Start())
}

func (s *devServer) kill(t testing.TB) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Kill())
	_ = s.cmd.Wait()
}

func (s *devServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// dial connects to the server, waiting for it to come up.
func dial(t testing.TB, addr string) client.Client {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		c, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dev server at %s did not come up: %v", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startWorker starts this test binary as a worker process.
func startWorker(t testing.TB, addr, modelURL string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), workerEnv+"=1", "TEMPORAL_ADDRESS="+addr,
		"OPENAI_BASE_URL="+modelURL, "OPENAI_API_KEY=sk-integration-test", "LOOM_MODEL=gpt-test")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, cmd.Start())
	return cmd
}

// coderModel is an OpenAI-format server that plays the coder: a snippet
// first, then an answer quoting the sandbox's result. Its first request
// blocks until the caller hangs up, so the test can kill the worker during
// the model call.
type coderModel struct {
	mu       sync.Mutex
	requests []string
	auth     string
	first    chan struct{}
}

func (m *coderModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.requests = append(m.requests, string(body))
	m.auth = r.Header.Get("Authorization")
	n := len(m.requests)
	m.mu.Unlock()
	if n == 1 {
		close(m.first)
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Minute):
		}
		return
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	last := req.Messages[len(req.Messages)-1]
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta string, finish string) {
		f := "null"
		if finish != "" {
			f = strconv.Quote(finish)
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, f)
	}
	if last.Role == "tool" {
		content, _ := json.Marshal(last.Content)
		text := "The sandbox failed: " + string(content)
		if strings.Contains(string(content), `\"result\":42`) {
			text = "The answer is 42."
		}
		s, _ := json.Marshal(text)
		chunk(`{"role":"assistant","content":`+string(s)+`}`, "")
		chunk(`{}`, "stop")
	} else {
		chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"evaluateJs","arguments":"{\"code\":\"6 * 7\"}"}}]}`, "")
		chunk(`{}`, "tool_calls")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// TestDevServerKillsAndRestarts runs the coder on a real Temporal dev
// server: the worker is killed during the model call and a second worker
// finishes it, the run waits for approval, the server is killed and
// restarted on the same database, and a signal approves the code.
func TestDevServerKillsAndRestarts(t *testing.T) {
	bin := os.Getenv(CLIEnv)
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: .ci/temporal.sh builds the Temporal CLI and sets it", CLIEnv)
		}
		t.Skipf("%s is not set: build the CLI with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` and set it to the binary", CLIEnv)
	}
	m := &coderModel{first: make(chan struct{})}
	model := httptest.NewServer(m)
	defer model.Close()
	srv := &devServer{bin: bin, db: filepath.Join(t.TempDir(), "temporal.db"), port: freePort(t), http: freePort(t), metrics: freePort(t)}
	srv.start(t)
	defer func() { _ = srv.cmd.Process.Kill(); _ = srv.cmd.Wait() }()
	c := dial(t, srv.addr())

	w1 := startWorker(t, srv.addr(), model.URL+"/v1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const id = integrationID
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, CoderWorkflow, "What is 6 times 7? Compute it.")
	require.NoError(t, err)

	select {
	case <-m.first:
	case <-ctx.Done():
		t.Fatal("the first worker never called the model")
	}
	require.NoError(t, w1.Process.Kill(), "SIGKILL the worker during the model call")
	_ = w1.Wait()
	w2 := startWorker(t, srv.addr(), model.URL+"/v1")
	defer func() { _ = w2.Process.Kill(); _ = w2.Wait() }()

	waitPending := func(c client.Client) lt.Status {
		for {
			st, err := status(ctx, c, id)
			if err == nil && len(st.Pending) > 0 {
				return st
			}
			if ctx.Err() != nil {
				t.Fatalf("the run never asked for approval: %v", err)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	st := waitPending(c)
	require.Equal(t, codeexec.ApprovalKind, st.Pending[0].Kind)
	require.Contains(t, string(st.Pending[0].Payload), "6 * 7")
	c.Close()

	srv.kill(t)
	srv.start(t)
	c = dial(t, srv.addr())
	defer c.Close()
	st = waitPending(c)
	require.Len(t, st.Pending, 1, "the approval survived the server restart")
	require.NoError(t, approve(ctx, c, id, codeexec.Approval{Approved: true}))

	var answer string
	require.NoError(t, c.GetWorkflow(ctx, id, "").Get(ctx, &answer))
	require.Equal(t, "The answer is 42.", answer)
	m.mu.Lock()
	calls, auth := len(m.requests), m.auth
	m.mu.Unlock()
	require.Equal(t, 3, calls, "the killed call, its retry on the second worker, the answer")
	require.Equal(t, "Bearer sk-integration-test", auth, "the worker's key reached the provider")

	h := &historypb.History{}
	it := c.GetWorkflowHistory(ctx, id, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	b, err := protojson.Marshal(h)
	require.NoError(t, err)
	require.NotContains(t, string(b), "sk-integration-test", "the key never enters the history")
	t.Logf("history: %d events, %d bytes of JSON", len(h.Events), len(b))
	if path := os.Getenv(RecordEnv); path != "" {
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
}
