//go:build linux

package hostile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// A model that sends many spinning snippets in one reply does not get a
// worker process for each: loom run keeps to its sandbox's cap (one
// worker per CPU), every snippet ends in a timeout the model is told of,
// the command exits as a run with no computed answer, and no worker is
// left.
func TestLoomRunCapsWorkersForParallelSnippets(t *testing.T) {
	const calls = 3 * 2 // three times the workers of a 2-CPU machine
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		var results []string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		if len(results) > 0 {
			return fakeopenai.Reply{Text: "RESULTS " + oneLine(strings.Join(results, "\n"))}
		}
		args, _ := json.Marshal(map[string]string{"code": spin.code})
		var tcs []fakeopenai.ToolCall
		for i := range calls {
			tcs = append(tcs, fakeopenai.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "evaluateJs", Arguments: string(args)})
		}
		return fakeopenai.Reply{ToolCalls: tcs}
	})
	dir := t.TempDir()
	file := projectFile(t, dir, limited(t, strings.Replace(coderYAML, "max_retries: 2", "max_retries: 10", 1), spin))
	r := testkit.NewReaper(loom, "run", file, "-i", "flood", "--db", filepath.Join(dir, "cp.db"))
	r.Cmd.Dir, r.Cmd.Env = dir, env(dir, srv.BaseURL())
	stdout, stderr := &testkit.SyncBuffer{}, &testkit.SyncBuffer{}
	r.Cmd.Stdout, r.Cmd.Stderr = stdout, stderr
	require.NoError(t, r.Start())
	pid := r.PID(t)
	var most atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // sample the command's workers while it runs
		defer close(sampled)
		for {
			if n := int64(len(testkit.Children(pid))); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	out := r.Wait(t)
	close(stop)
	<-sampled
	// Every snippet timed out, so no answer was computed: the exit table's 4.
	requireEndedAsARun(t, ran{out, stdout.String(), stderr.String()}, cli.ExitSnippetFailed)
	require.LessOrEqual(t, most.Load(), int64(runtime.NumCPU()), "workers at once, against the cap of one per CPU")
	require.Positive(t, most.Load(), "the sampling saw the workers")
	results := line(t, stdout.String(), "RESULTS ")
	require.Equal(t, calls, strings.Count(results, "time limit"), "every snippet was told it timed out: %s", results)
}
