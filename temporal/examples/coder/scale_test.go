package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	lt "github.com/loomwork/loom/temporal"
)

// taskPattern is the task every scale-out workflow gets: "What is A times B?"
var taskPattern = regexp.MustCompile(`What is (\d+) times (\d+)\?`)

// multiplier is an OpenAI-format server that plays the coder for many runs
// at once: for a task "What is A times B?" it answers with the snippet
// "A * B", and once the tool result is back, with "The answer is N." It
// counts the requests of each task, so a test can tell which model calls
// were made again.
type multiplier struct {
	delay time.Duration
	mu    sync.Mutex
	calls map[string]int // requests by task
	total atomic.Int64
}

func newMultiplier(delay time.Duration) *multiplier {
	return &multiplier{delay: delay, calls: map[string]int{}}
}

func (m *multiplier) count(task string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[task]
}

func (m *multiplier) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "not a chat completion request", http.StatusBadRequest)
		return
	}
	match := taskPattern.FindStringSubmatch(string(body))
	if match == nil {
		http.Error(w, "no task in the request", http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.calls[match[0]]++
	m.mu.Unlock()
	m.total.Add(1)
	select { // a model takes a while: calls are in flight when a worker dies
	case <-time.After(m.delay):
	case <-r.Context().Done():
		return
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "tool" {
		args, _ := json.Marshal(map[string]string{"code": match[1] + " * " + match[2]})
		argsJSON, _ := json.Marshal(string(args))
		writeStream(w, `{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"evaluateJs","arguments":`+string(argsJSON)+`}}]}`, "tool_calls")
		return
	}
	content, _ := last.Content.(string)
	var res struct {
		Result json.Number `json:"result"`
	}
	text := "The sandbox failed: " + content
	if json.Unmarshal([]byte(content), &res) == nil && res.Result != "" {
		text = "The answer is " + res.Result.String() + "."
	}
	s, _ := json.Marshal(text)
	writeStream(w, `{"role":"assistant","content":`+string(s)+`}`, "stop")
}

// writeStream answers a chat completion with one delta and its finish
// reason, as OpenAI streams them.
func writeStream(w http.ResponseWriter, delta, finish string) {
	w.Header().Set("Content-Type", "text/event-stream")
	const chunk = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n"
	fmt.Fprintf(w, chunk, delta, "null")
	fmt.Fprintf(w, chunk, "{}", strconv.Quote(finish))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// fleet is a dev server and the worker processes serving it.
type fleet struct {
	srv     *devServer
	c       client.Client
	model   *multiplier
	modelTS *httptest.Server
	workers []*exec.Cmd
}

func startFleet(t testing.TB, workers int, delay time.Duration) *fleet {
	t.Helper()
	bin := os.Getenv(CLIEnv)
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: .ci/temporal.sh builds the Temporal CLI and sets it", CLIEnv)
		}
		t.Skipf("%s is not set: build the CLI with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` and set it to the binary", CLIEnv)
	}
	f := &fleet{model: newMultiplier(delay)}
	f.modelTS = httptest.NewServer(f.model)
	t.Cleanup(f.modelTS.Close)
	f.srv = &devServer{bin: bin, db: filepath.Join(t.TempDir(), "scale.db"), port: freePort(t), http: freePort(t), metrics: freePort(t)}
	f.srv.start(t)
	t.Cleanup(func() { _ = f.srv.cmd.Process.Kill(); _ = f.srv.cmd.Wait() })
	f.c = dial(t, f.srv.addr())
	t.Cleanup(f.c.Close)
	for range workers {
		w := startWorker(t, f.srv.addr(), f.modelTS.URL+"/v1")
		f.workers = append(f.workers, w)
		t.Cleanup(func() { _ = w.Process.Kill(); _ = w.Wait() })
	}
	return f
}

// outcome is one workflow's result, as the client saw it.
type outcome struct {
	id, task, answer string
	latency          time.Duration
	err              error
}

// runAll starts n SolveWorkflows at once and waits for each; onProgress is
// called with the number finished after each one.
func (f *fleet) runAll(ctx context.Context, n int, prefix string, onProgress func(done int)) []outcome {
	out := make([]outcome, n)
	var wg sync.WaitGroup
	var done atomic.Int64
	starting := make(chan struct{}, 16) // starts in flight: the dev server's one SQLite file takes them in turn
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &out[i]
			o.id = fmt.Sprintf("%s-%03d", prefix, i)
			o.task = fmt.Sprintf("What is %d times %d?", 1000+i, 3)
			start := time.Now()
			starting <- struct{}{}
			r, err := f.start(ctx, o.id, o.task)
			<-starting
			if err == nil {
				err = r.Get(ctx, &o.answer)
			}
			o.latency, o.err = time.Since(start), err
			if onProgress != nil {
				onProgress(int(done.Add(1)))
			}
		}()
	}
	wg.Wait()
	return out
}

// start starts a SolveWorkflow, again when a start timed out or the server
// was busy: the workflow id makes a second start of the same run return it.
func (f *fleet) start(ctx context.Context, id, task string) (client.WorkflowRun, error) {
	for attempt := 1; ; attempt++ {
		r, err := f.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, SolveWorkflow, task)
		var busy *serviceerror.ResourceExhausted
		var unavailable *serviceerror.Unavailable
		transient := errors.Is(err, context.DeadlineExceeded) || errors.As(err, &busy) || errors.As(err, &unavailable) ||
			grpcstatus.Code(err) == codes.DeadlineExceeded
		if err == nil || !transient || attempt == 5 || ctx.Err() != nil {
			return r, err
		}
	}
}

// activity is one activity of a workflow's history.
type activity struct {
	kind      string // the activity type
	attempt   int32  // the attempt it ended on
	completed bool   // else it failed (or is still open)
}

// activityRuns reads a workflow's history: its activities and the
// history's size.
func activityRuns(ctx context.Context, c client.Client, id string) (acts []activity, events, bytes int, err error) {
	at := map[int64]int{} // scheduled event id → index in acts
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, 0, 0, err
		}
		events++
		bytes += proto.Size(ev)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			at[ev.GetEventId()] = len(acts)
			acts = append(acts, activity{kind: ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()})
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := ev.GetActivityTaskStartedEventAttributes()
			acts[at[a.GetScheduledEventId()]].attempt = a.GetAttempt()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			acts[at[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]].completed = true
		}
	}
	return acts, events, bytes, nil
}

// TestScaleOutWorkerKilled runs 200 Coder→Sandbox workflows across two
// worker processes on a real dev server and SIGKILLs one worker when about
// a third have finished. Every workflow must end with the right answer.
// Activities are at-least-once: only an activity that was running on the
// killed worker runs again (a later attempt, after its heartbeat timed
// out), and no completed activity runs twice. The model's own count of
// each task's calls must lie between the completed model activities and
// those plus the attempts the kill cut short, so no model call was made
// that the history does not account for.
func TestScaleOutWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("200 workflows on a dev server")
	}
	const n = 200
	f := startFleet(t, 2, 20*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var killOnce sync.Once
	killed := make(chan struct{})
	outs := f.runAll(ctx, n, "scale", func(done int) {
		if done >= n/3 {
			killOnce.Do(func() {
				if err := f.workers[0].Process.Kill(); err != nil { // SIGKILL one worker mid-way
					t.Errorf("kill the worker: %v", err)
				}
				close(killed)
			})
		}
	})
	select {
	case <-killed:
	default:
		t.Fatal("the worker was never killed")
	}
	var retried int
	for _, o := range outs {
		require.NoError(t, o.err, o.id)
		m := taskPattern.FindStringSubmatch(o.task)
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		require.Equal(t, fmt.Sprintf("The answer is %d.", a*b), o.answer, o.id)

		acts, _, _, err := activityRuns(ctx, f.c, o.id)
		require.NoError(t, err, o.id)
		completed := map[string]int{}
		// again counts the model attempts the kill may have cut short: every
		// attempt of a model activity before its last. The last attempt
		// either completed (one model call, counted below) or failed at
		// once on a worker without the conversation (loom.ConversationMissing,
		// no model call), and the workflow then sent a new activity with
		// the whole conversation.
		var again int
		rerun := false
		for _, a := range acts {
			if a.kind == lt.ModelActivity && a.attempt > 1 {
				again += int(a.attempt - 1)
			}
			if !a.completed {
				continue
			}
			completed[a.kind]++
			if a.attempt > 1 {
				rerun = true
			}
		}
		require.Equal(t, map[string]int{lt.ModelActivity: 2, lt.ToolActivity: 1}, completed, "%s: each activity completed once", o.id)
		// Each completed model call reached the model once, plus at most
		// once more for each attempt the kill cut short: none was made
		// that the history does not account for.
		seen := f.model.count(o.task)
		require.GreaterOrEqual(t, seen, 2, o.id)
		require.LessOrEqual(t, seen, 2+again, "%s: the model saw a call the history does not account for", o.id)
		if rerun {
			retried++
		}
	}
	t.Logf("%d workflows, %d model calls; %d workflows ran an activity again after the kill", n, f.model.total.Load(), retried)
	// How many activities the kill caught in flight depends on the moment;
	// a run where it caught none still holds the rest of what this checks.
}

// BenchmarkScaleOut runs 200 Coder→Sandbox workflows at once on one and on
// two worker processes (on this one machine) and reports workflows per
// second, p50 and p95 latency from start to answer, and the history size of
// a workflow. The model answers at once.
func BenchmarkScaleOut(b *testing.B) {
	const n = 200
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			f := startFleet(b, workers, 0)
			ctx := context.Background()
			// A first run warms the workers (compiles, caches, sandboxes).
			for _, o := range f.runAll(ctx, 4, "warm", nil) {
				if o.err != nil {
					b.Fatal(o.err)
				}
			}
			var lat []time.Duration
			var elapsed time.Duration
			for round := 0; b.Loop(); round++ {
				start := time.Now()
				outs := f.runAll(ctx, n, fmt.Sprintf("bench-%d", round), nil)
				elapsed += time.Since(start)
				for _, o := range outs {
					if o.err != nil {
						b.Fatal(o.err)
					}
					lat = append(lat, o.latency)
				}
			}
			slices.Sort(lat)
			_, events, size, err := activityRuns(ctx, f.c, "bench-0-000")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "workflows/s")
			b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Milliseconds()), "p95-ms")
			b.ReportMetric(float64(events), "history-events")
			b.ReportMetric(float64(size), "history-bytes")
		})
	}
}
