package engine_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// oldQuestions is a store that saves questions as loom wrote them before
// Question had one Run: "run_id" (the run that asked) and "root_id" (the
// run to resume).
type oldQuestions struct{ checkpoint.Store }

var newQuestion = regexp.MustCompile(`"id":"([^"?]*)\?(\d+)","run":"([^"]*)"`)

func (s oldQuestions) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	old := func(b json.RawMessage) json.RawMessage {
		return newQuestion.ReplaceAll(b, []byte(`"id":"$1?$2","run_id":"$1","root_id":"$3"`))
	}
	cp.State, cp.Events = old(cp.State), old(cp.Events)
	return s.Store.Put(ctx, cp)
}

// A run saved with the old question fields still lists its questions with
// the run to resume, and resumes.
func TestResumeRunSavedWithOldQuestionFields(t *testing.T) {
	ctx := t.Context()
	ask := testkit.Fn(t, "ask", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "input", "name?", json.RawMessage(`{"type":"string"}`))
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": json.RawMessage(ans)}, nil
	})
	seq, err := compose.NewSequence(compose.SequenceConfig{Name: "seq", Steps: []agent.Agent{ask}})
	require.NoError(t, err)
	mem := checkpoint.NewMemory()
	_, err = engine.New(engine.Config{Checkpoints: oldQuestions{mem}}).Invoke(ctx, seq, "go")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	q := ie.Questions[0]
	require.NotEqual(t, q.Run, q.AskedBy(), "the question is asked by a nested run")

	cps, err := mem.List(ctx, q.Run)
	require.NoError(t, err)
	var saved []byte
	for _, cp := range cps {
		saved = append(append(saved, cp.State...), cp.Events...)
	}
	require.Contains(t, string(saved), `"root_id":"`+q.Run+`"`, "the store holds the old form")
	require.NotContains(t, string(saved), `"run":"`)

	// Another process, reading what the old one wrote.
	e := engine.New(engine.Config{Checkpoints: mem})
	pending, err := e.Pending(ctx, q.Run)
	require.NoError(t, err)
	require.Equal(t, []agent.Question{q}, pending)
	res, err := e.ResumeInvoke(ctx, seq, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`"Ada"`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"name":"Ada"}`, string(res.Output))
}
