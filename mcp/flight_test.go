package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ts := connect(t, Config{Transport: func() sdk.Transport {
		ct, st := sdk.NewInMemoryTransports()
		go func() { _ = srv.Run(ctx, st) }()
		return ct
	}})
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
