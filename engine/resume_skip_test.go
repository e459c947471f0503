package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// readCounter counts what a resume reads of a run's line besides its head.
type readCounter struct {
	checkpoint.Store
	lists, listFroms atomic.Int32
	bytes            atomic.Int64
}

func (c *readCounter) List(ctx context.Context, runID string) ([]checkpoint.Checkpoint, error) {
	c.lists.Add(1)
	cps, err := c.Store.List(ctx, runID)
	c.bytes.Add(sizeOf(cps))
	return cps, err
}

func (c *readCounter) ListFrom(ctx context.Context, runID string, from int64) ([]checkpoint.Checkpoint, error) {
	c.listFroms.Add(1)
	cps, err := checkpoint.ListFrom(ctx, c.Store, runID, from)
	c.bytes.Add(sizeOf(cps))
	return cps, err
}

func (c *readCounter) Head(ctx context.Context, runID string) (checkpoint.Checkpoint, error) {
	cp, err := c.Store.Head(ctx, runID)
	c.bytes.Add(sizeOf([]checkpoint.Checkpoint{cp}))
	return cp, err
}

func (c *readCounter) reset() {
	c.lists.Store(0)
	c.listFroms.Store(0)
	c.bytes.Store(0)
}

func sizeOf(cps []checkpoint.Checkpoint) int64 {
	var n int64
	for _, cp := range cps {
		n += int64(len(cp.State) + len(cp.Events))
	}
	return n
}

// runStores returns a fresh checkpoint store of each kind: memory, SQLite,
// and PostgreSQL when LOOM_TEST_POSTGRES_DSN is set.
func runStores(t *testing.T) map[string]checkpoint.Store {
	out := map[string]checkpoint.Store{"memory": checkpoint.NewMemory()}
	for _, s := range durableStores(t) {
		out[s.kind], _ = openDurable(t, s.kind, s.where)
	}
	return out
}

// toolsThenAsk is an AI that calls a tool n times, one call a turn, the
// tools alternating between a function ("lookup") and an AI with usage
// ("summarize"), then calls "approve", which asks, then answers. guard
// adds an input guardrail that is an AI with usage: a nested run of the
// AI before its tools, which a resume replays.
type toolsThenAsk struct {
	lookups, summaries, screens, approvals atomic.Int32
	ai                                     *agent.AI
}

func newToolsThenAsk(t testing.TB, n int, guard bool) *toolsThenAsk {
	w := &toolsThenAsk{}
	lookup := testkit.Fn(t, "lookup", func(_ context.Context, in map[string]any) (map[string]any, error) {
		w.lookups.Add(1)
		return map[string]any{"found": in["q"]}, nil
	})
	sum := modeltest.Func(func(model.Request) modeltest.Turn {
		w.summaries.Add(1)
		return modeltest.Chunks(model.Chunk{TextDelta: "short", Usage: &model.Usage{InputTokens: 7, OutputTokens: 2}, FinishReason: model.FinishStop})
	})
	summarize := testkit.NewAI(t, agent.AIConfig{Name: "summarize", Description: "Summarises.", Model: modeltest.New(t, repeat(sum, n)...)})
	approve := testkit.Fn(t, "approve", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		w.approvals.Add(1)
		ans, err := agent.Ask(ctx, "approval", map[string]any{"what": "ship"}, nil)
		if err != nil {
			return nil, err
		}
		return map[string]any{"answer": json.RawMessage(ans)}, nil
	})
	turn := modeltest.Func(func(req model.Request) modeltest.Turn {
		done := 0
		for _, m := range req.Messages {
			done += len(m.ToolResults())
		}
		switch {
		case done < n && done%2 == 0:
			return modeltest.ToolCalls(modeltest.Call(fmt.Sprintf("c%d", done), "lookup", fmt.Sprintf(`{"q":%d}`, done)))
		case done < n:
			return modeltest.ToolCalls(modeltest.Call(fmt.Sprintf("c%d", done), "summarize", `{"message":"text"}`))
		case done == n:
			return modeltest.ToolCalls(modeltest.Call("ship", "approve", `{}`))
		}
		return modeltest.Chunks(model.Chunk{TextDelta: "shipped", Usage: &model.Usage{InputTokens: 100, OutputTokens: 10}, FinishReason: model.FinishStop})
	})
	cfg := agent.AIConfig{Name: "clerk", Model: modeltest.New(t, repeat(turn, n+2)...), Tools: []agent.Agent{lookup, summarize, approve}, MaxTurns: n + 5}
	if guard {
		screen := modeltest.Func(func(model.Request) modeltest.Turn {
			w.screens.Add(1)
			return modeltest.Chunks(model.Chunk{TextDelta: `{"action":"allow"}`, Usage: &model.Usage{InputTokens: 3, OutputTokens: 1}, FinishReason: model.FinishStop})
		})
		cfg.InputGuardrails = []agent.Guardrail{{Name: "screen", Agent: testkit.NewAI(t, agent.AIConfig{Name: "screen", Model: modeltest.New(t, screen), OutputSchema: agent.VerdictSchema()})}}
	}
	w.ai = testkit.NewAI(t, cfg)
	return w
}

func repeat(t modeltest.Turn, n int) []modeltest.Turn {
	out := make([]modeltest.Turn, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// A resumed AI takes the results of its tool runs that ended from its own
// record, as a graph skips its ended steps: the tools neither run again nor
// are replayed (no event of theirs is yielded again, nothing of theirs is
// read from the store), and their usage still counts, also when a nested
// run of the AI before them (an input guardrail) is replayed.
func TestResumeSkipsEndedToolRuns(t *testing.T) {
	ctx := context.Background()
	const n = 40
	for kind, store := range runStores(t) {
		for _, guard := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/guard=%v", kind, guard), func(t *testing.T) {
				w := newToolsThenAsk(t, n, guard)
				rc := &readCounter{Store: store}
				e := engine.New(engine.Config{Checkpoints: rc})
				id := fmt.Sprintf("skip%x", rand.Uint64())
				_, err := e.Invoke(agentrt.WithIDs(ctx, func() string { return id }), w.ai, "ship the order")
				ie := agentrt.Interrupts(err)
				require.NotNil(t, ie, "the run waits for its approval: %v", err)

				rc.reset()
				var replayedTools int
				var res *engine.Result
				for ev, err := range e.Resume(ctx, w.ai, id, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)}) {
					require.NoError(t, err)
					if ev.Replayed && (ev.Agent == "lookup" || ev.Agent == "summarize") {
						replayedTools++
					}
					if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
						res = &engine.Result{Output: ev.Output, Usage: ev.Usage, Cost: ev.Cost}
					}
				}
				require.NotNil(t, res)
				require.JSONEq(t, `{"message":"shipped"}`, string(res.Output))
				require.Zero(t, replayedTools, "no ended tool run is replayed")
				require.EqualValues(t, n/2, w.lookups.Load(), "each lookup ran once")
				require.EqualValues(t, n/2, w.summaries.Load(), "each summary's model call was made once")
				require.EqualValues(t, 2, w.approvals.Load(), "the approval ran until it asked, then with its answer")
				wantUsage := model.Usage{InputTokens: 100 + 7*n/2, OutputTokens: 10 + 2*n/2}
				if guard {
					require.EqualValues(t, 1, w.screens.Load(), "the guardrail was replayed, not called again")
					wantUsage = wantUsage.Add(model.Usage{InputTokens: 3, OutputTokens: 1})
				} else {
					require.Zero(t, rc.lists.Load()+rc.listFroms.Load(), "the resume read the run's head only")
				}
				require.Equal(t, wantUsage, res.Usage, "the skipped tool runs' usage counts once")
			})
		}
	}
}

// putCounter counts the bytes of the checkpoints written.
type putCounter struct {
	checkpoint.Store
	bytes atomic.Int64
}

func (p *putCounter) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	p.bytes.Add(int64(len(cp.State) + len(cp.Events)))
	return p.Store.Put(ctx, cp)
}

// asksM runs an AI that asks m times, each time through a tool, with a
// lookup between asks, and answers each question with a new engine (a
// process of its own). It returns the bytes written.
func asksM(t testing.TB, store checkpoint.Store, m int) int64 {
	ctx := context.Background()
	lookup := testkit.Fn(t, "lookup", func(_ context.Context, in map[string]any) (map[string]any, error) {
		return map[string]any{"found": "a line of text the lookup returns, as long as a real tool's result might be", "q": in["q"]}, nil
	})
	ask := testkit.Fn(t, "ask", func(ctx context.Context, _ map[string]any) (map[string]any, error) {
		ans, err := agent.Ask(ctx, "approval", map[string]any{"what": "go on"}, nil)
		if err != nil {
			return nil, err
		}
		return map[string]any{"answer": json.RawMessage(ans)}, nil
	})
	turn := modeltest.Func(func(req model.Request) modeltest.Turn {
		done := 0
		for _, msg := range req.Messages {
			done += len(msg.ToolResults())
		}
		switch {
		case done < 2*m && done%2 == 0:
			return modeltest.ToolCalls(modeltest.Call(fmt.Sprintf("c%d", done), "lookup", fmt.Sprintf(`{"q":%d}`, done)))
		case done < 2*m:
			return modeltest.ToolCalls(modeltest.Call(fmt.Sprintf("c%d", done), "ask", `{}`))
		}
		return modeltest.Text("all done")
	})
	a := testkit.NewAI(t, agent.AIConfig{Name: "asker", Model: modeltest.New(t, repeat(turn, 2*m+1)...), Tools: []agent.Agent{lookup, ask}, MaxTurns: 2*m + 5})
	pc := &putCounter{Store: store}
	id := fmt.Sprintf("asks%x", rand.Uint64())
	_, err := engine.New(engine.Config{Checkpoints: pc}).Invoke(agentrt.WithIDs(ctx, func() string { return id }), a, "go")
	for range m {
		ie := agentrt.Interrupts(err)
		require.NotNil(t, ie, "the run asks: %v", err)
		_, err = engine.New(engine.Config{Checkpoints: pc}).ResumeInvoke(ctx, a, id, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
	}
	require.NoError(t, err)
	return pc.bytes.Load()
}

// A run that waits M times stores O(N + M) bytes, not O(N·M): each
// snapshot refers to the previous one for the conversation so far, and an
// interrupted run's end is saved without its messages. The bytes written
// per ask stay flat as M doubles (under O(N·M) they doubled).
func TestSnapshotBytesGrowLinearly(t *testing.T) {
	store := checkpoint.NewMemory()
	b8, b16, b32, b64 := asksM(t, store, 8), asksM(t, store, 16), asksM(t, store, 32), asksM(t, store, 64)
	per := []float64{float64(b16-b8) / 8, float64(b32-b16) / 16, float64(b64-b32) / 32}
	t.Logf("bytes written: M=8 %d, M=16 %d, M=32 %d, M=64 %d; per ask %.0f, %.0f, %.0f", b8, b16, b32, b64, per[0], per[1], per[2])
	for i := 1; i < len(per); i++ {
		require.Less(t, per[i], per[0]*1.25, "the bytes per ask do not grow with the asks before")
	}
}
