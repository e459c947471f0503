package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
)

// TestReusedFlightsKeepProgressApart: many calls, concurrent and one after
// the other, through one toolset whose ended calls' records are reused,
// each see only their own call's progress, in order, also when the server
// sends progress up to the moment it answers. (Progress that the SDK hands
// over after the result may be lost, so a call may see less than all of
// it; it must never see another call's.)
func TestReusedFlightsKeepProgressApart(t *testing.T) {
	type in struct {
		ID string `json:"id"`
	}
	const steps = 5
	srv := sdk.NewServer(&sdk.Implementation{Name: "progress", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "count"}, func(ctx context.Context, req *sdk.CallToolRequest, v in) (*sdk.CallToolResult, map[string]string, error) {
		tok := req.Params.GetProgressToken()
		for i := range steps {
			if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Message: v.ID}); err != nil {
				return nil, nil, err
			}
		}
		return nil, map[string]string{"id": v.ID}, nil
	})
	ctx := context.Background()
	ts := connect(t, inMemory(t, srv))
	tools, err := ts.Tools(ctx)
	require.NoError(t, err)
	count := tools[0]
	var seen atomic.Int64 // progress notifications the calls saw

	call := func(id string) error {
		var got []string
		var out string
		for ev, err := range count.Run(ctx, []byte(fmt.Sprintf(`{"id":%q}`, id))) {
			if err != nil {
				return err
			}
			if ev.Kind == agent.EventTextDelta {
				got = append(got, strings.TrimSpace(ev.Text))
			}
			if ev.Kind == agent.EventRunEnd {
				out = string(ev.Output)
			}
		}
		next := 1
		for _, g := range got {
			var n int
			var of string
			if _, err := fmt.Sscanf(g, "progress %d: %s", &n, &of); err != nil || of != id || n < next || n > steps {
				return fmt.Errorf("call %s saw progress %q: not its own, in order", id, got)
			}
			next = n + 1
		}
		seen.Add(int64(len(got)))
		if !strings.Contains(out, `"id":"`+id+`"`) {
			return fmt.Errorf("call %s returned %s", id, out)
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := range 25 {
				if err := call(fmt.Sprintf("w%d-%d", w, i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Positive(t, seen.Load(), "progress reached the calls")
	ts.mu.Lock()
	defer ts.mu.Unlock()
	require.Empty(t, ts.calls, "every call was forgotten")
}

// inMemory is the config of a toolset whose sessions are with srv, served
// in memory until the test ends.
func inMemory(t *testing.T, srv *sdk.Server) Config {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return Config{Transport: func() sdk.Transport {
		ct, st := sdk.NewInMemoryTransports()
		go func() { _ = srv.Run(ctx, st) }()
		return ct
	}}
}

// blockServer serves "quick", which answers at once, and "block", which
// reports on started that it began and returns when its request is
// cancelled.
func blockServer(t *testing.T, started chan<- struct{}) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "block", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "quick"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, map[string]string, error) {
		return nil, map[string]string{"ok": "yes"}, nil
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "block"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, map[string]string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	return srv
}

// freeFlight takes the flight the last call left on ts's free list and
// puts it back.
func freeFlight(t *testing.T, ts *Toolset) *flight {
	t.Helper()
	require.Len(t, ts.free, 1, "the call's flight went back to the free list")
	f := <-ts.free
	ts.free <- f
	return f
}

// TestCallContextReusedUntilCancelled: over a transport that keeps no
// request's context, calls one after the other reuse one context; a call
// cancelled in flight leaves its context behind, so that the next call is
// not born cancelled.
func TestCallContextReusedUntilCancelled(t *testing.T) {
	started := make(chan struct{}, 1)
	srv := blockServer(t, started)
	ctx := context.Background()
	ts := connect(t, inMemory(t, srv))
	quick, block := toolNamed(t, ts, "quick"), toolNamed(t, ts, "block")

	_, err := agent.Invoke(ctx, quick, nil)
	require.NoError(t, err)
	first := freeFlight(t, ts).ctx
	require.NotNil(t, first, "an uncancelled context is kept")
	_, err = agent.Invoke(ctx, quick, nil)
	require.NoError(t, err)
	require.Same(t, first, freeFlight(t, ts).ctx, "the next call reused it")

	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := agent.Invoke(runCtx, block, nil)
		done <- err
	}()
	<-started
	stop()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Nil(t, freeFlight(t, ts).ctx, "a cancelled context is not reused")

	out, err := agent.Invoke(ctx, quick, nil)
	require.NoError(t, err, "the call after a cancelled one is not cancelled")
	require.JSONEq(t, `{"ok":"yes"}`, string(out))
	require.NotSame(t, first, freeFlight(t, ts).ctx)
}

// TestHTTPCallContextNotReused: the streamable HTTP transport reads a
// call's event stream in a goroutine holding the call's context, so every
// HTTP call gets its own, cancelled once the call returned.
func TestHTTPCallContextNotReused(t *testing.T) {
	hs, _ := sdkHTTPServer(t, blockServer(t, make(chan struct{}, 1)))
	ts := connect(t, Config{URL: hs.URL})
	quick := toolNamed(t, ts, "quick")
	for range 2 {
		out, err := agent.Invoke(context.Background(), quick, nil)
		require.NoError(t, err)
		require.JSONEq(t, `{"ok":"yes"}`, string(out))
		require.Nil(t, freeFlight(t, ts).ctx)
	}
}

// TestWorkersEndWithShutdown: calls beyond the idle workers start more;
// once the toolset is closed, every worker has ended.
func TestWorkersEndWithShutdown(t *testing.T) {
	const n = 3 * maxIdleWorkers
	started := make(chan struct{}, n)
	srv := blockServer(t, started)
	ctx := context.Background()
	ts, err := Connect(ctx, inMemory(t, srv))
	require.NoError(t, err)
	block := toolNamed(t, ts, "block")
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := agent.Invoke(runCtx, block, nil)
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
	for range n {
		<-started
	}
	ts.mu.Lock()
	require.Equal(t, n, ts.workers, "one worker per call in flight")
	ts.mu.Unlock()
	stop()
	wg.Wait()
	require.NoError(t, ts.Close())
	ts.mu.Lock()
	defer ts.mu.Unlock()
	require.Zero(t, ts.workers, "Close waited for the workers to end")
}
