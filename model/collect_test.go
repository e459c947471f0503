package model_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

func chunks(cs ...model.Chunk) func(func(model.Chunk, error) bool) {
	return func(yield func(model.Chunk, error) bool) {
		for _, c := range cs {
			if !yield(c, nil) {
				return
			}
		}
	}
}

func delta(i int, id, name, args string) model.Chunk {
	return model.Chunk{ToolCall: &model.ToolCallDelta{Index: i, ID: id, Name: name, ArgumentsDelta: args}}
}

func TestCollectAssemblesFragments(t *testing.T) {
	resp, err := model.Collect(chunks(
		model.Chunk{TextDelta: "Let me "},
		model.Chunk{TextDelta: "check."},
		delta(1, "call_b", "weather", ""),
		delta(0, "call_a", "weather", `{"ci`),
		delta(1, "", "", `{"city":`),
		delta(0, "", "", `ty":"Paris"}`),
		delta(1, "", "", `"Tokyo"}`),
		delta(2, "call_c", "time", ""),
		model.Chunk{Usage: &model.Usage{InputTokens: 10}},
		model.Chunk{Usage: &model.Usage{OutputTokens: 7, CachedInputTokens: 0}},
		model.Chunk{FinishReason: model.FinishToolCalls},
	))
	require.NoError(t, err)
	require.Equal(t, "Let me check.", resp.Message.Text())
	calls := resp.Message.ToolCalls()
	require.Len(t, calls, 3)
	require.Equal(t, "call_a", calls[0].ID)
	require.JSONEq(t, `{"city":"Paris"}`, string(calls[0].Arguments))
	require.Equal(t, "call_b", calls[1].ID)
	require.JSONEq(t, `{"city":"Tokyo"}`, string(calls[1].Arguments))
	require.Equal(t, "time", calls[2].Name)
	require.JSONEq(t, `{}`, string(calls[2].Arguments), "a call with no arguments gets an empty object")
	require.Equal(t, model.Usage{InputTokens: 10, OutputTokens: 7}, resp.Usage)
	require.Equal(t, model.FinishToolCalls, resp.FinishReason)
}

func TestCollectReturnsPartialOnError(t *testing.T) {
	boom := errors.New("boom")
	resp, err := model.Collect(modeltest.New(t, modeltest.TextDeltas("par", "tial").ThenError(boom)).Stream(t.Context(), model.Request{}))
	require.ErrorIs(t, err, boom)
	require.Equal(t, "partial", resp.Message.Text())
}

func TestUsageAddsUp(t *testing.T) {
	a := model.Usage{InputTokens: 1, OutputTokens: 2, CachedInputTokens: 3}
	b := model.Usage{InputTokens: 10, OutputTokens: 20, CachedInputTokens: 30}
	require.Equal(t, model.Usage{InputTokens: 11, OutputTokens: 22, CachedInputTokens: 33}, a.Add(b))
	require.Equal(t, int64(33), a.Add(b).Total())
	require.True(t, model.Usage{}.IsZero())
}

func TestCollectCutToolCall(t *testing.T) {
	cases := []struct {
		name   string
		args   string
		finish model.FinishReason
		cut    bool
	}{
		{"cut at the limit", `{"city":"Par`, model.FinishLength, true},
		{"complete at the limit", `{"city":"Paris"}`, model.FinishLength, false},
		{"invalid but not at the limit", `{"city":`, model.FinishToolCalls, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stream := func(yield func(model.Chunk, error) bool) {
				_ = yield(model.Chunk{ToolCall: &model.ToolCallDelta{ID: "c1", Name: "get_weather", ArgumentsDelta: c.args}}, nil) &&
					yield(model.Chunk{FinishReason: c.finish}, nil)
			}
			resp, err := model.Collect(stream)
			require.NotNil(t, resp)
			if !c.cut {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, model.ErrOutputLimit)
			var cut *model.CutToolCallError
			require.ErrorAs(t, err, &cut)
			require.Equal(t, "get_weather", cut.Name)
		})
	}
}

func TestFinishReasonErr(t *testing.T) {
	require.ErrorIs(t, model.FinishLength.Err(), model.ErrOutputLimit)
	for _, f := range []model.FinishReason{model.FinishStop, model.FinishToolCalls, model.FinishContentFilter, model.FinishOther, ""} {
		require.NoError(t, f.Err())
	}
}

func ExampleFinishReason_Err() {
	cut := func(yield func(model.Chunk, error) bool) {
		_ = yield(model.Chunk{TextDelta: "Once upon a"}, nil) && yield(model.Chunk{FinishReason: model.FinishLength}, nil)
	}
	resp, _ := model.Collect(cut)
	if err := resp.FinishReason.Err(); err != nil {
		fmt.Println(resp.Message.Text()+"…", errors.Is(err, model.ErrOutputLimit))
	}
	// Output:
	// Once upon a… true
}
