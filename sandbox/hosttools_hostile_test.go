package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hostileWorkerEnv makes the test binary a worker that breaks the tool
// call rules in the way its value names.
const hostileWorkerEnv = "LOOM_TEST_HOSTILE_WORKER"

// serveHostileWorker speaks the worker protocol (sandbox/internal/worker's
// wire.go) until the first request, then sends tool calls no honest worker
// sends, and waits to be killed.
func serveHostileWorker(mode string) int {
	w := bufio.NewWriter(os.Stdout)
	write := func(v any) {
		line, _ := json.Marshal(v)
		_, _ = w.Write(append(line, '\n'))
		_ = w.Flush()
	}
	write(map[string]any{"ready": true, "pid": os.Getpid(), "version": 1})
	r := bufio.NewReader(os.Stdin)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return 0
	}
	var req struct {
		ID    uint64     `json:"id"`
		Calls CallLimits `json:"calls"`
	}
	if json.Unmarshal(line, &req) != nil {
		return 1
	}
	call := func(id uint64, seq uint64) map[string]any {
		return map[string]any{"id": id, "call": map[string]any{"seq": seq, "tool": "echo", "args": json.RawMessage(`{"message":"forged"}`)}}
	}
	switch mode {
	case "other-run": // a call for a run that is not in flight
		write(call(req.ID+1, 1))
	case "flood": // more calls than the run may make, fast
		for i := range req.Calls.MaxCalls + req.Calls.MaxInFlight + 1 {
			write(call(req.ID, uint64(i+1)))
		}
	case "late": // a call after the run's reply
		write(map[string]any{"id": req.ID, "result": Result{Value: json.RawMessage("1")}})
		write(call(req.ID, 1))
	}
	for { // until the parent kills the worker or closes its input
		if _, err := r.ReadBytes('\n'); err != nil {
			return 0
		}
	}
}

// TestHostileWorkerCalls holds the parent to the call rules whatever a
// worker whose runtime was taken over sends: a call for another run, more
// calls than allowed, or a call after the run ended are refused, the tool
// is not run, and the worker is killed.
func TestHostileWorkerCalls(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, mode := range []string{"other-run", "flood", "late"} {
		t.Run(mode, func(t *testing.T) {
			e := newTestIsolated(t, IsolatedConfig{WorkerCommand: []string{exe}, WorkerEnv: []string{hostileWorkerEnv + "=" + mode}, NoNamespaces: true, Concurrency: 1, Limits: Limits{Timeout: 5 * time.Second}})
			tt := &testTools{}
			box := tt.box(t, CallLimits{MaxCalls: 5, MaxInFlight: 2})
			_, err := e.RunWithTools(context.Background(), `await tools.echo({message: 'x'})`, box)
			if mode == "late" {
				require.NoError(t, err) // the run itself ended well; the next one meets the late call
				_, err = e.RunWithTools(context.Background(), `1`, box)
			}
			require.Error(t, err)
			require.Equal(t, KindInternal, ErrorKind(err), err.Error())
			require.Contains(t, err.Error(), "tool call that was not allowed")
			allowed := int64(0)
			if mode == "flood" {
				allowed = 5 // the calls within the limits run
			}
			require.LessOrEqual(t, tt.calls.Load(), allowed, "a refused call ran the tool")
		})
	}
}

func TestToolboxChecks(t *testing.T) {
	call := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	for _, tc := range []struct {
		name  string
		tools []HostTool
		lim   CallLimits
		msg   string
	}{
		{"no name", []HostTool{{Call: call}}, CallLimits{}, "has no name"},
		{"no call", []HostTool{{Name: "a"}}, CallLimits{}, "has no Call"},
		{"same JS name", []HostTool{{Name: "get-sum", Call: call}, {Name: "get_sum", Call: call}}, CallLimits{}, "both offered as tools.get_sum"},
		{"bad schema", []HostTool{{Name: "a", Call: call, InputSchema: json.RawMessage(`{"type":3}`)}}, CallLimits{}, "input schema"},
		{"negative calls", nil, CallLimits{MaxCalls: -1}, "MaxCalls is -1"},
		{"too many in flight", nil, CallLimits{MaxInFlight: 65}, "between 1 and 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewToolbox(tc.tools, tc.lim)
			require.ErrorContains(t, err, tc.msg)
		})
	}
	b, err := NewToolbox(nil, CallLimits{})
	require.NoError(t, err)
	require.Equal(t, CallLimits{MaxCalls: DefaultMaxCalls, MaxInFlight: DefaultMaxInFlight}, b.Limits())
}

func TestJSName(t *testing.T) {
	for in, want := range map[string]string{"get-sum": "get_sum", "echo": "echo", "fs.read/file": "fs_read_file", "3d": "_3d", "a$b": "a$b"} {
		require.Equal(t, want, JSName(in), in)
	}
}
