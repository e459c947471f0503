package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// seedRuns stores n runs one second apart (seed i starts i seconds after
// base), alternating agents coder/analyst, every third one failed.
func seedRuns(t *testing.T, s *store.Store, n int) time.Time {
	t.Helper()
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i := range n {
		r := fixture.Run{Seed: uint64(i + 1), Start: base.Add(time.Duration(i) * time.Second)}
		if i%2 == 1 {
			r.Agent = "analyst"
		}
		if i%3 == 2 {
			r.Outcome = fixture.Failed
		}
		export(t, s, r)
	}
	return base
}

func ids(p store.Page) []string {
	out := make([]string, len(p.Traces))
	for i, t := range p.Traces {
		out[i] = t.TraceID
	}
	return out
}

func seedIDs(seeds ...uint64) []string {
	out := make([]string, len(seeds))
	for i, s := range seeds {
		out[i] = fixture.IDs(s).String()
	}
	return out
}

func TestTracesFilterAndPaging(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	seedRuns(t, s, 7) // seeds 1..7; analyst: 2,4,6; failed: 3,6

	tests := []struct {
		name string
		q    store.Query
		want []string
		next bool
	}{
		{"all newest first", store.Query{}, seedIDs(7, 6, 5, 4, 3, 2, 1), false},
		{"first page", store.Query{Limit: 3}, seedIDs(7, 6, 5), true},
		{"by agent", store.Query{Agent: "analyst"}, seedIDs(6, 4, 2), false},
		{"by status", store.Query{Status: "error"}, seedIDs(6, 3), false},
		{"by both", store.Query{Agent: "coder", Status: "ok"}, seedIDs(7, 5, 1), false},
		{"no match", store.Query{Agent: "nobody"}, seedIDs(), false},
		{"running", store.Query{Status: "running"}, seedIDs(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := s.Traces(ctx, tc.q)
			require.NoError(t, err)
			require.Equal(t, tc.want, ids(p))
			require.Equal(t, tc.next, p.Next != "")
			require.Equal(t, int64(7), p.Seq)
		})
	}

	// Walking the pages visits every trace once, in order.
	var all []string
	q := store.Query{Limit: 2}
	for {
		p, err := s.Traces(ctx, q)
		require.NoError(t, err)
		all = append(all, ids(p)...)
		if p.Next == "" {
			break
		}
		q.Before = p.Next
	}
	require.Equal(t, seedIDs(7, 6, 5, 4, 3, 2, 1), all)
}

func TestTracesSince(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	seedRuns(t, s, 3)
	p, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Equal(t, int64(3), p.Seq)

	// Nothing changed yet.
	changed, err := s.Traces(ctx, store.Query{Since: p.Seq})
	require.NoError(t, err)
	require.Empty(t, changed.Traces)
	require.Equal(t, p.Seq, changed.Seq)

	// Two new runs and a late span of an old one: all three show up, oldest change first.
	export(t, s, fixture.Run{Seed: 10}, fixture.Run{Seed: 11})
	late := fixture.CoderSandbox(fixture.Run{Seed: 12, Start: time.Now().Add(-2 * time.Hour)})
	require.NoError(t, store.NewExporter(s).ExportSpans(ctx, late[:1].Snapshots()))
	changed, err = s.Traces(ctx, store.Query{Since: p.Seq})
	require.NoError(t, err)
	require.Equal(t, seedIDs(10, 11, 12), ids(changed))
	require.Equal(t, int64(6), changed.Seq)
	require.Equal(t, "running", changed.Traces[2].Status)

	// A small limit pages through the changes by sequence.
	first, err := s.Traces(ctx, store.Query{Since: p.Seq, Limit: 2})
	require.NoError(t, err)
	require.Equal(t, seedIDs(10, 11), ids(first))
	require.Equal(t, int64(5), first.Seq)
	rest, err := s.Traces(ctx, store.Query{Since: first.Seq, Limit: 2})
	require.NoError(t, err)
	require.Equal(t, seedIDs(12), ids(rest))
	require.Equal(t, int64(6), rest.Seq)
}

func TestTracesBadQuery(t *testing.T) {
	s := openTemp(t, store.Config{})
	for _, q := range []store.Query{{Status: "done"}, {Before: "nonsense"}, {Before: "12."}} {
		_, err := s.Traces(context.Background(), q)
		require.ErrorIs(t, err, store.ErrBadQuery, "%+v", q)
	}
	p, err := s.Traces(context.Background(), store.Query{Limit: 100000})
	require.NoError(t, err, "a too-large limit is capped")
	require.Empty(t, p.Traces)
}

func TestTraceNotFound(t *testing.T) {
	s := openTemp(t, store.Config{})
	_, err := s.Trace(context.Background(), "0123456789abcdef0123456789abcdef")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestAgents(t *testing.T) {
	s := openTemp(t, store.Config{})
	agents, err := s.Agents(context.Background())
	require.NoError(t, err)
	require.Empty(t, agents)
	seedRuns(t, s, 5)
	agents, err = s.Agents(context.Background())
	require.NoError(t, err)
	require.Equal(t, []store.AgentCount{{Name: "analyst", Traces: 2}, {Name: "coder", Traces: 3}}, agents)
}

func TestWriteSpans(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	start := time.Now().Add(-time.Minute).UTC().Truncate(time.Microsecond)
	in := []store.Span{{
		TraceID: "AAAA0000000000000000000000000001", SpanID: "00000000000000A1", Name: "invoke_agent importer",
		Kind: "internal", Start: start, End: start.Add(time.Second), Status: "error", StatusMessage: "boom",
		Attributes: map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "importer",
			"gen_ai.usage.input_tokens": 7, "loom.cost.usd": 0.25, "list": []string{"a"}},
		Events: []store.Event{{Name: "exception", Time: start, Attributes: map[string]any{"exception.message": "boom"}}},
	}}
	require.NoError(t, s.Write(ctx, in))
	d, err := s.Trace(ctx, "aaaa0000000000000000000000000001")
	require.NoError(t, err)
	require.Equal(t, "importer", d.Summary.Agent)
	require.Equal(t, "error", d.Summary.Status)
	require.Equal(t, int64(7), d.Summary.InputTokens, "without model spans the agent's totals count")
	require.InDelta(t, 0.25, d.Summary.CostUSD, 1e-12)
	require.Len(t, d.Spans, 1)
	got := d.Spans[0]
	require.Equal(t, "00000000000000a1", got.SpanID)
	require.Equal(t, start, got.Start)
	require.Equal(t, []any{"a"}, got.Attributes["list"])
	require.Equal(t, int64(7), got.Attributes["gen_ai.usage.input_tokens"])
	require.Equal(t, []store.Event{{Name: "exception", Time: start, Attributes: map[string]any{"exception.message": "boom"}}}, got.Events)
	require.NoError(t, s.Write(ctx, nil))
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	empty, err := s.Stats(ctx, store.Query{})
	require.NoError(t, err)
	require.Equal(t, store.Stats{}, empty)

	base := seedRuns(t, s, 6) // failed: seeds 3 and 6; analyst: 2, 4, 6
	// A running trace: everything but the root.
	running := fixture.CoderSandbox(fixture.Run{Seed: 50})
	require.NoError(t, store.NewExporter(s).ExportSpans(ctx, running[:len(running)-1].Snapshots()))

	tests := []struct {
		name string
		q    store.Query
		want store.Stats
	}{
		{"all", store.Query{}, store.Stats{Traces: 7, OK: 4, Errors: 2, Running: 1, ErrorRate: 2.0 / 6,
			InputTokens: 4*300 + 2*120 + 300, OutputTokens: 4*54 + 2*42 + 54, ModelCalls: 14, ToolCalls: 7,
			AvgDurationMS: 1412, Since: base.UTC()}},
		{"agent", store.Query{Agent: "analyst"}, store.Stats{Traces: 3, OK: 2, Errors: 1, ErrorRate: 1.0 / 3,
			InputTokens: 2*300 + 120, OutputTokens: 2*54 + 42, ModelCalls: 6, ToolCalls: 3,
			AvgDurationMS: 1412, Since: base.Add(time.Second).UTC()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Stats(ctx, tc.q)
			require.NoError(t, err)
			require.Positive(t, got.CostUSD)
			got.CostUSD = 0
			require.InDelta(t, tc.want.ErrorRate, got.ErrorRate, 1e-12)
			got.ErrorRate = tc.want.ErrorRate
			require.Equal(t, tc.want, got)
		})
	}
	_, err = s.Stats(ctx, store.Query{Status: "bogus"})
	require.ErrorIs(t, err, store.ErrBadQuery)
}

func TestRootStatus(t *testing.T) {
	tests := []struct {
		name   string
		attrs  map[string]any
		status string
		want   string
	}{
		{"span status ok", nil, "unset", "ok"},
		{"span status error", nil, "error", "error"},
		{"agent outcome limit", map[string]any{"loom.outcome": "limit"}, "error", "limit"},
		{"agent outcome ok despite status", map[string]any{"loom.outcome": "ok"}, "error", "ok"},
		{"workflow answered", map[string]any{"loom.outcome": "ok", "loom.workflow.outcome": "answered"}, "unset", "ok"},
		{"workflow failed wins", map[string]any{"loom.outcome": "ok", "loom.workflow.outcome": "failed"}, "unset", "error"},
		{"workflow limit", map[string]any{"loom.workflow.outcome": "limit"}, "error", "limit"},
		{"unknown outcome falls back", map[string]any{"loom.outcome": "weird"}, "unset", "ok"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTemp(t, store.Config{})
			now := time.Now()
			attrs := map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "wf", "loom.agent.kind": "workflow"}
			for k, v := range tc.attrs {
				attrs[k] = v
			}
			id := fmt.Sprintf("%032x", i+1)
			require.NoError(t, s.Write(context.Background(), []store.Span{{
				TraceID: id, SpanID: "0000000000000001", Name: "invoke_agent wf", Kind: "internal",
				Start: now, End: now.Add(time.Second), Status: tc.status, Attributes: attrs,
			}}))
			d, err := s.Trace(context.Background(), id)
			require.NoError(t, err)
			require.Equal(t, tc.want, d.Summary.Status)
		})
	}
}
