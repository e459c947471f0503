package agent

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInvocationLendsItsRunToOneRootRun: the root run that starts directly
// under Invoke's context runs in the invocation's Run; a second root run
// under the same context, started concurrently, and the nested runs get
// their own.
func TestInvocationLendsItsRunToOneRootRun(t *testing.T) {
	var mu sync.Mutex
	runs := map[string]*Run{}
	record := func(_ context.Context, r *Run) (json.RawMessage, error) {
		mu.Lock()
		runs[r.ID] = r
		mu.Unlock()
		return json.RawMessage(`{"id":"` + r.ID + `"}`), nil
	}
	leaf, err := New(Info{Name: "leaf"}, record)
	require.NoError(t, err)
	parent, err := New(Info{Name: "parent"}, func(ctx context.Context, r *Run) (json.RawMessage, error) {
		if _, err := record(ctx, r); err != nil {
			return nil, err
		}
		return r.Call(ctx, leaf, json.RawMessage(`{}`))
	})
	require.NoError(t, err)

	inv := &invocation{Context: context.Background()}
	var wg sync.WaitGroup
	outs := make([]json.RawMessage, 2)
	for i := range outs {
		wg.Go(func() {
			out, err := Collect(parent.Run(inv, json.RawMessage(`{}`)))
			assert.NoError(t, err)
			outs[i] = out
		})
	}
	wg.Wait()
	require.Len(t, runs, 4, "two roots, each with a nested run")
	lent := 0
	for id, r := range runs {
		require.Equal(t, id, r.ID, "each run kept its own state")
		if r == &inv.run {
			lent++
			require.Empty(t, r.ParentID, "only a root run takes the invocation's Run")
		}
	}
	require.Equal(t, 1, lent, "exactly one run took the invocation's Run")
	require.NotEqual(t, string(outs[0]), string(outs[1]))
}

// wrapper is an agent whose own stream runs inner under the same context
// and replaces its output: Invoke must return the wrapper's output even
// though inner's run is the one that takes the invocation's Run.
type wrapper struct{ inner Agent }

func (w wrapper) Info() Info {
	return Info{Name: "wrapper", InputSchema: anyObject, OutputSchema: anyObject}
}

func (w wrapper) Run(ctx context.Context, input json.RawMessage) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if !yield(Event{Kind: EventRunStart, RunID: "w"}, nil) {
			return
		}
		for ev, err := range w.inner.Run(ctx, input) {
			if err != nil {
				yield(Event{Kind: EventRunEnd, RunID: "w", Err: err}, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
		yield(Event{Kind: EventRunEnd, RunID: "w", Output: json.RawMessage(`{"wrapped":true}`)}, nil)
	}
}

func TestInvokeReturnsTheOutermostRunsOutput(t *testing.T) {
	inner, err := New(Info{Name: "inner"}, func(context.Context, *Run) (json.RawMessage, error) {
		return json.RawMessage(`{"inner":true}`), nil
	})
	require.NoError(t, err)
	out, err := Invoke(context.Background(), wrapper{inner: inner}, nil)
	require.NoError(t, err)
	require.JSONEq(t, `{"wrapped":true}`, string(out))
	out, err = Invoke(context.Background(), inner, nil)
	require.NoError(t, err)
	require.JSONEq(t, `{"inner":true}`, string(out))
}
