package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// countRows counts spans and traces straight from the file.
func countRows(t *testing.T, path string) (spans, traces int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_query_only=1")
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM spans`).Scan(&spans))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM traces`).Scan(&traces))
	return spans, traces
}

func allIDs(t *testing.T, s *store.Store) []string {
	t.Helper()
	p, err := s.Traces(context.Background(), store.Query{Limit: store.MaxLimit})
	require.NoError(t, err)
	return ids(p)
}

func TestRetentionByAge(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(context.Background(), store.Config{Path: path, MaxAge: 24 * time.Hour, Clock: clock})
	require.NoError(t, err)
	defer s.Close()

	export(t, s,
		fixture.Run{Seed: 1, Start: now.Add(-72 * time.Hour)},
		fixture.Run{Seed: 2, Start: now.Add(-25 * time.Hour)},
		fixture.Run{Seed: 3, Start: now.Add(-23 * time.Hour)},
	)
	// Each write prunes what is older than a day, including traces it just wrote.
	require.Equal(t, seedIDs(3), allIDs(t, s))
	spans, traces := countRows(t, path)
	require.Equal(t, 6, spans)
	require.Equal(t, 1, traces)

	// Time passes: the next write prunes the now-old trace.
	now = now.Add(2 * time.Hour)
	export(t, s, fixture.Run{Seed: 4, Start: now})
	require.Equal(t, seedIDs(4), allIDs(t, s))
}

func TestRetentionByCount(t *testing.T) {
	s := openTemp(t, store.Config{MaxTraces: 3})
	base := time.Now().Add(-time.Hour)
	for i := range 6 {
		export(t, s, fixture.Run{Seed: uint64(i + 1), Start: base.Add(time.Duration(i) * time.Minute)})
		p, err := s.Traces(context.Background(), store.Query{})
		require.NoError(t, err)
		require.LessOrEqual(t, len(p.Traces), 3)
	}
	require.Equal(t, seedIDs(6, 5, 4), allIDs(t, s))
}

func TestRetentionBySpans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(context.Background(), store.Config{Path: path, MaxSpans: 14})
	require.NoError(t, err)
	defer s.Close()
	base := time.Now().Add(-time.Hour)
	for i := range 5 {
		export(t, s, fixture.Run{Seed: uint64(i + 1), Start: base.Add(time.Duration(i) * time.Minute)})
	}
	// 6 spans a run: two runs (12 spans) fit under 14.
	require.Equal(t, seedIDs(5, 4), allIDs(t, s))
	spans, _ := countRows(t, path)
	require.Equal(t, 12, spans)
}

// bigTrace is one root span with n-1 children, all in one trace.
func bigTrace(seed uint64, n int, start time.Time) tracetest.SpanStubs {
	tid := fixture.IDs(seed)
	sc := func(i int) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{0xb, byte(seed), 0, 0, 0, byte(i >> 16), byte(i >> 8), byte(i)}})
	}
	root := sc(0)
	out := make(tracetest.SpanStubs, 0, n)
	for i := 1; i < n; i++ {
		out = append(out, tracetest.SpanStub{
			Name: "chat tiny", SpanContext: sc(i), Parent: root, StartTime: start.Add(time.Duration(i) * time.Microsecond),
			EndTime: start.Add(time.Duration(i+1) * time.Microsecond),
			Attributes: []attribute.KeyValue{
				attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "ollama"),
				attribute.String("gen_ai.request.model", "tiny"), attribute.Int64("gen_ai.usage.input_tokens", 1),
			},
		})
	}
	out = append(out, tracetest.SpanStub{Name: "invoke_agent bulk", SpanContext: root, StartTime: start, EndTime: start.Add(time.Second),
		Attributes: []attribute.KeyValue{attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "bulk")}})
	return out
}

func TestRetentionWorkIsBoundedPerWrite(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	clock := func() time.Time { return now }
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(ctx, store.Config{Path: path, MaxAge: time.Hour, PruneBatch: 40, Clock: clock})
	require.NoError(t, err)
	defer s.Close()
	exp := store.NewExporter(s)
	require.NoError(t, exp.ExportSpans(ctx, bigTrace(1, 100, now.Add(-10*time.Minute)).Snapshots()))
	spans, traces := countRows(t, path)
	require.Equal(t, 100, spans)
	require.Equal(t, 1, traces)

	// The big trace ages out; each write deletes at most 40 of its spans and
	// keeps its summary until the last span is gone.
	now = now.Add(2 * time.Hour)
	wantLeft := []int{60, 20, 0}
	for i, left := range wantLeft {
		export(t, s, fixture.Run{Seed: uint64(10 + i), Start: now})
		spans, traces = countRows(t, path)
		require.Equal(t, left+6*(i+1), spans, "write %d", i)
		if left > 0 {
			require.Equal(t, i+2, traces, "the pruned trace keeps its row while spans remain")
		} else {
			require.Equal(t, i+1, traces)
		}
	}
	_, err = s.Trace(ctx, fixture.IDs(1).String())
	require.ErrorIs(t, err, store.ErrNotFound)
}

// A retention bound of zero is the default and a negative one means none:
// a trace older than DefaultMaxAge is pruned under the zero config and
// kept under MaxAge -1.
func TestRetentionZeroIsDefaultNegativeIsNone(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	for _, tc := range []struct {
		name   string
		maxAge time.Duration
		want   []string
	}{
		{"zero: the default", 0, seedIDs(2)},
		{"negative: no bound", -1, seedIDs(1, 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := store.Open(context.Background(), store.Config{Path: filepath.Join(t.TempDir(), "traces.db"), MaxAge: tc.maxAge, Clock: clock})
			require.NoError(t, err)
			defer s.Close()
			export(t, s,
				fixture.Run{Seed: 1, Start: now.Add(-store.DefaultMaxAge - time.Hour)},
				fixture.Run{Seed: 2, Start: now.Add(-time.Hour)},
			)
			require.ElementsMatch(t, tc.want, allIDs(t, s))
		})
	}
}
