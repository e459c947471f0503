package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// loggedModel appends a line to a file per call, so that calls made in
// several processes add up.
type loggedModel struct {
	model.Model
	log string
}

func (l loggedModel) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	f, err := os.OpenFile(l.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		_, _ = f.WriteString("call\n")
		_ = f.Close()
	}
	return l.Model.Stream(ctx, req)
}

// guardedDeployer is an AI whose input a classifier agent checks and whose
// tool asks a person before it acts.
func guardedDeployer(t *testing.T, main, judge model.Model) agent.Agent {
	t.Helper()
	classifier := testkit.NewAI(t, agent.AIConfig{Name: "classifier", Model: judge, OutputSchema: agent.VerdictSchema()})
	confirm := testkit.Fn(t, "confirm", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "approval", in, nil)
		if err != nil {
			return nil, err
		}
		return map[string]any{"approved": json.RawMessage(ans)}, nil
	})
	return testkit.NewAI(t, agent.AIConfig{Name: "deployer", Model: main, Tools: []agent.Agent{confirm},
		InputGuardrails: []agent.Guardrail{{Name: "classifier", Agent: classifier}}})
}

// TestGuardrailKillChild is the child process of
// TestGuardrailNotRepeatedAfterKill.
func TestGuardrailKillChild(t *testing.T) {
	phase := os.Getenv("LOOM_GUARD_PHASE")
	if phase == "" {
		t.Skip("run by TestGuardrailNotRepeatedAfterKill in a child process")
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlite.Config{Path: os.Getenv("LOOM_GUARD_DB")})
	require.NoError(t, err)
	defer store.Close()
	judgeLog := os.Getenv("LOOM_GUARD_LOG")
	switch phase {
	case "start":
		judge := loggedModel{modeltest.New(t, modeltest.JSON(agent.Allow())), judgeLog}
		main := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "confirm", `{"env":"prod"}`)))
		e := engine.New(engine.Config{Checkpoints: store})
		_, err := e.Invoke(ctx, guardedDeployer(t, main, judge), "deploy to prod")
		var ie *agent.InterruptedError
		require.ErrorAs(t, err, &ie)
		fmt.Printf("RUN %s\n", ie.Questions[0].Run)
		select {} // wait to be killed
	case "resume":
		judge := loggedModel{modeltest.New(t), judgeLog} // any call fails the test
		main := modeltest.New(t, modeltest.Text("deployed"))
		e := engine.New(engine.Config{Checkpoints: store})
		runID := os.Getenv("LOOM_GUARD_RUN")
		pending, err := e.Pending(ctx, runID)
		require.NoError(t, err)
		require.Len(t, pending, 1)
		res, err := e.ResumeInvoke(ctx, guardedDeployer(t, main, judge), runID, map[string]json.RawMessage{pending[0].ID: json.RawMessage(`true`)})
		require.NoError(t, err)
		fmt.Printf("ANSWER %s calls=%d\n", res.Text(), main.Calls())
	}
}

// TestGuardrailNotRepeatedAfterKill runs an AI with a classifier guardrail
// to a question in one process, kills it with SIGKILL, and resumes it from
// SQLite in another: the classifier's call is replayed from the
// checkpoints, not made again.
func TestGuardrailNotRepeatedAfterKill(t *testing.T) {
	dir := t.TempDir()
	env := []string{"LOOM_GUARD_DB=" + filepath.Join(dir, "runs.db"), "LOOM_GUARD_LOG=" + filepath.Join(dir, "judge.log")}
	child := func(phase string, extra ...string) *exec.Cmd {
		return testkit.Child("TestGuardrailKillChild", append(append(env, "LOOM_GUARD_PHASE="+phase), extra...)...)
	}
	first := child("start")
	out, err := first.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	line := testkit.LineWith(t, out, "RUN ")
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_ = first.Wait()
	runID := strings.TrimPrefix(line, "RUN ")

	res, err := child("resume", "LOOM_GUARD_RUN="+runID).Output()
	require.NoError(t, err, string(res))
	require.Contains(t, string(res), "ANSWER deployed calls=1")
	log, err := os.ReadFile(filepath.Join(dir, "judge.log"))
	require.NoError(t, err)
	require.Equal(t, "call\n", string(log), "the classifier was called once, before the kill")
}
