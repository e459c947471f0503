package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestExportSkipsSpansStoredBefore exports a batch large enough for
// multi-row inserts, some of whose spans were stored by an earlier export:
// the summaries must count every span once, as if each was exported once.
func TestExportSkipsSpansStoredBefore(t *testing.T) {
	ctx := context.Background()
	start := time.Now().Add(-time.Hour)
	var all []sdktrace.ReadOnlySpan
	var early []sdktrace.ReadOnlySpan
	for seed := uint64(1); seed <= 15; seed++ { // 90 spans: two full chunks and the rest
		spans := fixture.CoderSandbox(fixture.Run{Seed: seed, Start: start.Add(time.Duration(seed) * time.Second)}).Snapshots()
		all = append(all, spans...)
		if seed == 2 || seed == 9 || seed == 14 {
			early = append(early, spans[1:4]...) // part of a trace, in the first, second and last chunk
		}
	}
	require.Greater(t, len(all), 64)

	summaries := func(s *store.Store) []store.TraceSummary {
		p, err := s.Traces(ctx, store.Query{Limit: 100})
		require.NoError(t, err)
		for i := range p.Traces {
			p.Traces[i].Seq = 0 // differs with the number of writes
		}
		return p.Traces
	}

	once := openTemp(t, store.Config{})
	require.NoError(t, store.NewExporter(once).ExportSpans(ctx, all))

	retried := openTemp(t, store.Config{})
	exp := store.NewExporter(retried)
	require.NoError(t, exp.ExportSpans(ctx, early))
	require.NoError(t, exp.ExportSpans(ctx, all))
	require.NoError(t, exp.ExportSpans(ctx, all), "a whole batch again changes nothing")

	want := summaries(once)
	require.Len(t, want, 15)
	require.Equal(t, want, summaries(retried))
	for _, sum := range want {
		require.Equal(t, int64(6), sum.Spans)
	}
	d, err := retried.Trace(ctx, fixture.IDs(9).String())
	require.NoError(t, err)
	require.Len(t, d.Spans, 6)
}
