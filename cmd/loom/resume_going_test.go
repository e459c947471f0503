package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestResumeRefusesARunThatAsksNothing: loom resume --approve of a run the
// playground is running (its model call not yet answered) answers nothing
// and takes nothing over: the model is not called a second time and the
// playground's run ends on its own. Once that server is killed mid-call,
// --approve still refuses and names --continue, which finishes the run
// once; --continue of a run that waits for an approval is refused, and
// both flags say when a run already ended.
func TestResumeRefusesARunThatAsksNothing(t *testing.T) {
	release := make(chan struct{})
	var slowCalls, calls atomic.Int32
	fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		calls.Add(1)
		text := fmt.Sprint(body.Messages[len(body.Messages)-1].Content)
		switch {
		case strings.Contains(text, "15!"):
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": "evaluateJs", "arguments": `{"code":"1"}`}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
			return
		case text == "slow" && slowCalls.Add(1) == 1:
			<-release // the first slow call is answered when the test says so
		}
		chunk(map[string]any{"role": "assistant", "content": "answered " + text}, nil)
		chunk(map[string]any{}, "stop")
	})
	unblock := sync1(release)
	t.Cleanup(unblock) // before the fake server closes, which waits for its handlers
	file, db := servedProject(t, coderYAML)

	// A run the playground is running.
	api, srv := servePlayground(t, file, db)
	var going struct{ ID string }
	require.Equal(t, http.StatusCreated, apiCall(t, api, "POST", "runs", `{"agent":"coder","input":{"message":"fast"}}`, &going))
	require.Equal(t, "done", waitStatus(t, api, going.ID).Status)
	var slow struct{ ID string }
	require.Equal(t, http.StatusCreated, apiCall(t, api, "POST", "runs", `{"agent":"coder","input":{"message":"slow"}}`, &slow))
	require.Eventually(t, func() bool { return slowCalls.Load() == 1 }, 2*time.Minute, 10*time.Millisecond)

	code, _, stderr := loomProcess(t, "resume", slow.ID, "--approve", "--db", db)
	require.Equal(t, exitFailed, code, stderr)
	require.Contains(t, stderr, "run "+slow.ID+" waits for no answer: it is running in another process")
	require.Equal(t, int32(1), slowCalls.Load(), "the refused resume called no model")

	// The playground dies mid-call: the run stopped, and --continue
	// finishes it.
	require.NoError(t, srv.Process.Signal(syscall.SIGKILL))
	_ = srv.Wait()
	code, _, stderr = loomProcess(t, "resume", slow.ID, "--approve", "--db", db)
	require.Equal(t, exitFailed, code, stderr)
	require.Contains(t, stderr, "loom resume "+slow.ID+" --continue")
	code, stdout, stderr := loomProcess(t, "resume", slow.ID, "--continue", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "answered slow\n", stdout)
	require.Equal(t, int32(2), slowCalls.Load(), "the cut call made again, once")
	for _, flag := range []string{"--approve", "--continue"} {
		code, _, stderr = loomProcess(t, "resume", slow.ID, flag, "--db", db)
		require.Equal(t, exitFailed, code, stderr)
		require.Contains(t, stderr, "already ended")
		require.Contains(t, stderr, slow.ID)
	}

	// --continue does not pass over a question.
	code, stdout, stderr = loomProcess(t, "run", file, "-i", "Calculate 15!", "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	waiting := strings.TrimSpace(stdout)
	before := calls.Load()
	code, _, stderr = loomProcess(t, "resume", waiting, "--continue", "--db", db)
	require.Equal(t, exitInvalid, code, stderr)
	require.Contains(t, stderr, "run "+waiting+" waits for 1 answer(s)")
	require.Equal(t, before, calls.Load())
	code, _, stderr = loomProcess(t, "resume", waiting, "--approve", "--continue", "--db", db)
	require.Equal(t, exitInvalid, code, stderr)
}

// sync1 returns a function that closes ch the first time it is called.
func sync1(ch chan struct{}) func() {
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			close(ch)
		}
	}
}

// TestPlaygroundStoppedBySIGTERMLeavesItsRunsToContinue: loom serve stopped
// gracefully (SIGTERM, as a deploy does) while a run waits for its model
// leaves the run as a crash would, not failed: the server started again
// lists it as stopped, and loom resume --continue finishes it, which the
// page then shows.
func TestPlaygroundStoppedBySIGTERMLeavesItsRunsToContinue(t *testing.T) {
	release := make(chan struct{})
	var slowCalls atomic.Int32
	fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		if slowCalls.Add(1) == 1 {
			<-release // the first call is never answered: the server stops during it
		}
		chunk(map[string]any{"role": "assistant", "content": "answered"}, nil)
		chunk(map[string]any{}, "stop")
	})
	t.Cleanup(sync1(release))
	file, db := servedProject(t, coderYAML)
	api, srv := servePlayground(t, file, db)
	var going struct{ ID string }
	require.Equal(t, http.StatusCreated, apiCall(t, api, "POST", "runs", `{"agent":"coder","input":{"message":"x"}}`, &going))
	require.Eventually(t, func() bool { return slowCalls.Load() == 1 }, 2*time.Minute, 10*time.Millisecond)
	require.NoError(t, srv.Process.Signal(syscall.SIGTERM))
	_ = srv.Wait()
	require.Equal(t, 143, srv.ProcessState.ExitCode())

	api, _ = servePlayground(t, file, db)
	var list []playgroundRun
	require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs", "", &list))
	require.Len(t, list, 1)
	require.Equal(t, "stopped", list[0].Status, list[0].Error)
	code, stdout, stderr := loomProcess(t, "resume", going.ID, "--continue", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "answered\n", stdout)
	require.Equal(t, int32(2), slowCalls.Load(), "the cut call made once more")
	require.Eventually(t, func() bool {
		var v playgroundRun
		return apiCall(t, api, "GET", "runs/"+going.ID, "", &v) == http.StatusOK && v.Status == "done"
	}, 2*time.Minute, 20*time.Millisecond)
}
