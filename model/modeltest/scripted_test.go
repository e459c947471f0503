package modeltest_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

type recordingTB struct {
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestScriptedPlaysTurnsAndRecordsRequests(t *testing.T) {
	boom := errors.New("boom")
	m := modeltest.New(t,
		modeltest.Text("hello").WithUsage(3, 1),
		modeltest.ToolCalls(modeltest.Call("c1", "f", `{"x":1}`)),
		modeltest.Error(boom),
		modeltest.Func(func(req model.Request) modeltest.Turn { return modeltest.Text("echo " + req.Messages[0].Text()) }),
	)
	req := func(s string) model.Request { return model.Request{Messages: []model.Message{model.UserMessage(s)}} }

	r1, err := model.Generate(t.Context(), m, req("a"))
	require.NoError(t, err)
	require.Equal(t, "hello", r1.Message.Text())
	require.Equal(t, model.Usage{InputTokens: 3, OutputTokens: 1}, r1.Usage)

	r2, err := model.Generate(t.Context(), m, req("b"))
	require.NoError(t, err)
	require.Equal(t, "c1", r2.Message.ToolCalls()[0].ID)

	_, err = model.Generate(t.Context(), m, req("c"))
	require.ErrorIs(t, err, boom)

	r4, err := model.Generate(t.Context(), m, req("d"))
	require.NoError(t, err)
	require.Equal(t, "echo d", r4.Message.Text())

	require.Equal(t, 4, m.Calls())
	require.Equal(t, "c", m.Request(2).Messages[0].Text())
	require.Len(t, m.Requests(), 4)
	require.Zero(t, m.Remaining())
}

func TestScriptedFailsTestWhenExhausted(t *testing.T) {
	tb := &recordingTB{}
	m := modeltest.New(tb, modeltest.Text("only one"))
	_, err := model.Generate(t.Context(), m, model.Request{Messages: []model.Message{model.UserMessage("1")}})
	require.NoError(t, err)
	_, err = model.Generate(t.Context(), m, model.Request{Messages: []model.Message{model.UserMessage("second question")}})
	require.ErrorIs(t, err, modeltest.ErrScriptExhausted)
	require.Len(t, tb.errors, 1)
	require.Contains(t, tb.errors[0], `model called 2 times but the script has only 1 turns; last request ends with user message "second question"`)
}

func TestScriptedErrorMidStream(t *testing.T) {
	cut := errors.New("cut")
	m := modeltest.New(t, modeltest.TextDeltas("a", "b").ThenError(cut))
	var got []string
	var gotErr error
	for c, err := range m.Stream(t.Context(), model.Request{}) {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, c.TextDelta)
	}
	require.Equal(t, []string{"a", "b", ""}, got)
	require.ErrorIs(t, gotErr, cut)
}
