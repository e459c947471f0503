package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/stretchr/testify/require"
)

// fanOf returns an agent whose body fans out n jobs of leaf with opt and
// hands the outcomes to got.
func fanOf(n int, leaf agent.Agent, opt agentrt.FanOptions, got func([]agentrt.Outcome, error)) agent.Agent {
	return testAgent{name: "fan", body: func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		jobs := make([]agentrt.Job, n)
		for i := range jobs {
			jobs[i] = agentrt.Job{Agent: leaf, Input: json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)}
		}
		outs, err := agentrt.Fan(ctx, r, jobs, opt)
		got(outs, err)
		return json.RawMessage(`{}`), err
	}}
}

type nIn struct {
	N int `json:"n"`
}

func TestFanOnTheDefaultRunner(t *testing.T) {
	t.Run("every job runs, outcomes in job order, every event passed on", func(t *testing.T) {
		leaf, err := agent.NewFunc("leaf", "Doubles.", func(_ context.Context, in nIn) (int, error) { return 2 * in.N, nil })
		require.NoError(t, err)
		var outs []agentrt.Outcome
		starts := 0
		for ev, err := range fanOf(8, leaf, agentrt.FanOptions{}, func(o []agentrt.Outcome, _ error) { outs = o }).Run(t.Context(), json.RawMessage(`{}`)) {
			require.NoError(t, err)
			if ev.Kind == agent.EventRunStart && ev.Agent == "leaf" {
				starts++
			}
		}
		require.Equal(t, 8, starts)
		require.Len(t, outs, 8)
		for i, o := range outs {
			require.True(t, o.Started)
			require.NoError(t, o.Err)
			require.JSONEq(t, strconv.Itoa(2*i), string(o.End.Output), "job %d", i)
		}
	})
	t.Run("slow jobs all run at once", func(t *testing.T) {
		const n = 6
		var barrier sync.WaitGroup
		barrier.Add(n)
		leaf, err := agent.NewFunc("leaf", "Waits for the others.", func(ctx context.Context, in nIn) (int, error) {
			barrier.Done()
			done := make(chan struct{})
			go func() { barrier.Wait(); close(done) }()
			select {
			case <-done:
				return in.N, nil
			case <-time.After(10 * time.Second):
				return 0, errors.New("the other jobs never started: they did not run at once")
			}
		})
		require.NoError(t, err)
		var outs []agentrt.Outcome
		_, err = agent.Collect(fanOf(n, leaf, agentrt.FanOptions{}, func(o []agentrt.Outcome, _ error) { outs = o }).Run(t.Context(), json.RawMessage(`{}`)))
		require.NoError(t, err)
		for _, o := range outs {
			require.NoError(t, o.Err)
		}
	})
	t.Run("the limit caps jobs running at once", func(t *testing.T) {
		var running, peak atomic.Int32
		leaf, err := agent.NewFunc("leaf", "Works.", func(ctx context.Context, in nIn) (int, error) {
			now := running.Add(1)
			for {
				p := peak.Load()
				if now <= p || peak.CompareAndSwap(p, now) {
					break
				}
			}
			time.Sleep(2 * time.Millisecond)
			running.Add(-1)
			return in.N, nil
		})
		require.NoError(t, err)
		_, err = agent.Collect(fanOf(8, leaf, agentrt.FanOptions{Limit: 3}, func([]agentrt.Outcome, error) {}).Run(t.Context(), json.RawMessage(`{}`)))
		require.NoError(t, err)
		require.LessOrEqual(t, peak.Load(), int32(3))
	})
	t.Run("a failure cancels running jobs and skips the rest", func(t *testing.T) {
		boom := errors.New("boom")
		leaf, err := agent.NewFunc("leaf", "Fails first, waits otherwise.", func(ctx context.Context, in nIn) (int, error) {
			if in.N == 0 {
				return 0, boom
			}
			<-ctx.Done()
			return 0, ctx.Err()
		})
		require.NoError(t, err)
		var outs []agentrt.Outcome
		_, err = agent.Collect(fanOf(8, leaf, agentrt.FanOptions{Limit: 2}, func(o []agentrt.Outcome, _ error) { outs = o }).Run(t.Context(), json.RawMessage(`{}`)))
		require.NoError(t, err, "the fan-out itself succeeds; its jobs' outcomes carry the failures")
		require.ErrorIs(t, outs[0].Err, boom)
		skipped := 0
		for _, o := range outs[1:] {
			require.ErrorIs(t, o.Err, context.Canceled)
			if !o.Started {
				skipped++
				require.ErrorContains(t, o.Err, "not started")
			}
		}
		require.Positive(t, skipped, "jobs waiting for a free slot never start")
	})
	t.Run("collect keeps the others running", func(t *testing.T) {
		boom := errors.New("boom")
		leaf, err := agent.NewFunc("leaf", "Fails first.", func(ctx context.Context, in nIn) (int, error) {
			if in.N == 0 {
				return 0, boom
			}
			return in.N, nil
		})
		require.NoError(t, err)
		var outs []agentrt.Outcome
		_, err = agent.Collect(fanOf(5, leaf, agentrt.FanOptions{Limit: 2, Collect: true}, func(o []agentrt.Outcome, _ error) { outs = o }).Run(t.Context(), json.RawMessage(`{}`)))
		require.NoError(t, err)
		require.ErrorIs(t, outs[0].Err, boom)
		for i, o := range outs[1:] {
			require.NoError(t, o.Err)
			require.JSONEq(t, strconv.Itoa(i+1), string(o.End.Output))
		}
	})
	t.Run("a consumer that stops reading cancels and waits for every job", func(t *testing.T) {
		var started, ended atomic.Int32
		leaf, err := agent.NewFunc("leaf", "Waits until cancelled.", func(ctx context.Context, in nIn) (int, error) {
			started.Add(1)
			<-ctx.Done()
			ended.Add(1)
			return 0, ctx.Err()
		})
		require.NoError(t, err)
		var fanErr error
		for ev, err := range fanOf(4, leaf, agentrt.FanOptions{}, func(_ []agentrt.Outcome, err error) { fanErr = err }).Run(t.Context(), json.RawMessage(`{}`)) {
			require.NoError(t, err)
			if ev.Kind == agent.EventRunStart && ev.Agent == "leaf" {
				break
			}
		}
		require.ErrorIs(t, fanErr, agentrt.ErrStopped)
		require.Positive(t, started.Load())
		require.Equal(t, started.Load(), ended.Load(), "no job outlives the fan-out")
	})
}
