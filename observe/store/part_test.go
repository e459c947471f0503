package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// runParts returns the parts loom's tracer provider would write for runs.
func runParts(runs ...fixture.Run) []store.Part {
	var parts []store.Part
	for _, r := range runs {
		parts = append(parts, partsOf(fixture.CoderSandbox(r).Snapshots())...)
	}
	return parts
}

func TestWritePartsStoresWhatExportStores(t *testing.T) {
	ctx := context.Background()
	start := time.Now().Add(-time.Hour)
	runs := []fixture.Run{{Seed: 1, Start: start}, {Seed: 2, Start: start.Add(time.Second), Outcome: fixture.Failed}, {Seed: 5, Start: start.Add(3 * time.Second), Outcome: fixture.SandboxError}, {Seed: 3, Start: start.Add(2 * time.Second), Agent: "other"}}

	exported := openTemp(t, store.Config{})
	export(t, exported, runs...)
	written := openTemp(t, store.Config{})
	require.NoError(t, written.WriteParts(ctx, runParts(runs...)))

	// Seq counts writes: one export per run against one WriteParts.
	want, err := exported.Traces(ctx, store.Query{})
	require.NoError(t, err)
	got, err := written.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, got.Traces, len(runs))
	for i := range want.Traces {
		want.Traces[i].Seq = got.Traces[i].Seq
	}
	require.Equal(t, want.Traces, got.Traces)
	for _, sum := range want.Traces {
		w, err := exported.Trace(ctx, sum.TraceID)
		require.NoError(t, err)
		g, err := written.Trace(ctx, sum.TraceID)
		require.NoError(t, err)
		w.Summary.Seq = g.Summary.Seq
		require.Equal(t, w, g, "trace %s", sum.TraceID)
	}

	// Writing the same parts again changes nothing.
	require.NoError(t, written.WriteParts(ctx, runParts(runs...)))
	again, err := written.Traces(ctx, store.Query{})
	require.NoError(t, err)
	for i := range again.Traces {
		again.Traces[i].Seq = got.Traces[i].Seq
	}
	require.Equal(t, got.Traces, again.Traces)
	require.NoError(t, written.WriteParts(ctx, nil), "nothing to write")
}

func TestWritePartsOfOneTraceFromTwoProcesses(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	spans := fixture.CoderSandbox(fixture.Run{Seed: 7}).Snapshots()
	id := fixture.IDs(7).String()
	// The tool's spans came from a server process (their local root has a
	// remote parent), the rest from the client: two parts, either order.
	all := runParts(fixture.Run{Seed: 7})[0]
	server := store.Part{TraceID: all.TraceID, Spans: all.Spans[:3]}
	server.Spans[2].RemoteParent = true
	client := store.Part{TraceID: all.TraceID, Spans: all.Spans[3:]}
	require.NoError(t, s.WriteParts(ctx, []store.Part{server}))
	d, err := s.Trace(ctx, id)
	require.NoError(t, err)
	require.Equal(t, int64(3), d.Summary.Spans)
	require.NoError(t, s.WriteParts(ctx, []store.Part{client}))
	d, err = s.Trace(ctx, id)
	require.NoError(t, err)
	require.Len(t, d.Spans, len(spans))
	require.Equal(t, int64(len(spans)), d.Summary.Spans)
	require.Equal(t, "coder", d.Summary.Agent)
	for i := 1; i < len(d.Spans); i++ {
		require.False(t, d.Spans[i].Start.Before(d.Spans[i-1].Start), "spans by start time")
	}
}

func TestCorruptPartIsAClearError(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.WriteParts(ctx, runParts(fixture.Run{Seed: 4})))
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`UPDATE parts SET spans = '[{"span_id": 12'`)
	require.NoError(t, err)
	_, err = s.Trace(ctx, fixture.IDs(4).String())
	require.ErrorContains(t, err, "of trace "+fixture.IDs(4).String()+" is corrupt")
}

func TestOpenMigratesVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	export(t, s, fixture.Run{Seed: 1})
	require.NoError(t, s.Close())
	// Make the file what schema version 1 wrote: spans, no parts, no run
	// columns.
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(`DROP TABLE parts; DROP INDEX traces_run; ALTER TABLE traces DROP COLUMN run_id; ALTER TABLE traces DROP COLUMN resumed; ALTER TABLE traces DROP COLUMN code_ok; ALTER TABLE traces DROP COLUMN code_failed; ALTER TABLE traces DROP COLUMN eval; DROP TABLE failed_spans; PRAGMA user_version = 1`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err = store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, strconv.Itoa(store.SchemaVersion), pragma(t, path, "user_version"))
	d, err := s.Trace(ctx, fixture.IDs(1).String())
	require.NoError(t, err, "the spans written before the migration are kept")
	require.Len(t, d.Spans, 6)
	require.NoError(t, s.WriteParts(ctx, runParts(fixture.Run{Seed: 2})))
	require.ElementsMatch(t, seedIDs(1, 2), allIDs(t, s))
}

func TestRetentionPrunesParts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(ctx, store.Config{Path: path, MaxTraces: 2})
	require.NoError(t, err)
	defer s.Close()
	start := time.Now().Add(-time.Hour)
	for i := range 4 {
		require.NoError(t, s.WriteParts(ctx, runParts(fixture.Run{Seed: uint64(i + 1), Start: start.Add(time.Duration(i) * time.Minute)})))
	}
	require.ElementsMatch(t, seedIDs(3, 4), allIDs(t, s), "the oldest runs are pruned")
	db, err := sql.Open("sqlite", "file:"+path+"?_query_only=1")
	require.NoError(t, err)
	defer db.Close()
	var parts, counted int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM parts`).Scan(&parts))
	require.NoError(t, db.QueryRow(`SELECT value FROM counters WHERE name = 'spans'`).Scan(&counted))
	require.Equal(t, 2, parts)
	require.Equal(t, 12, counted, "the span count follows the pruned parts")
	var traces, rows int
	require.NoError(t, db.QueryRow(`SELECT value FROM counters WHERE name = 'traces'`).Scan(&traces))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM traces`).Scan(&rows))
	require.Equal(t, 2, rows)
	require.Equal(t, rows, traces, "the trace count follows inserts, updates and deletes")
}

func TestSharedTextsAreStoredOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_query_only=1")
	require.NoError(t, err)
	defer db.Close()
	count := func(query string) int {
		var n int
		require.NoError(t, db.QueryRow(query).Scan(&n))
		return n
	}
	const inline = `SELECT count(*) FROM parts WHERE instr(spans, 'Run JavaScript in a sandbox') > 0`

	// The first write carries the keys and the descriptions in place and
	// stores them; the parts encoded after it refer to them.
	require.NoError(t, s.WriteParts(ctx, runParts(fixture.Run{Seed: 1})))
	first := count(`SELECT count(*) FROM texts`)
	require.Positive(t, first)
	require.NoError(t, s.WriteParts(ctx, runParts(fixture.Run{Seed: 2}, fixture.Run{Seed: 3})))
	require.Equal(t, first, count(`SELECT count(*) FROM texts`), "keys and descriptions are stored once, whatever the number of runs")
	require.Equal(t, 1, count(inline), "only the first run carries the description in place")

	// A store opened afresh (another process) finds the stored texts.
	other, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, other.WriteParts(ctx, runParts(fixture.Run{Seed: 4})))
	require.NoError(t, other.WriteParts(ctx, runParts(fixture.Run{Seed: 5})))
	require.Equal(t, first, count(`SELECT count(*) FROM texts`))
	require.Equal(t, 2, count(inline))

	for _, seed := range []uint64{1, 4, 5} {
		d, err := s.Trace(ctx, fixture.IDs(seed).String())
		require.NoError(t, err)
		found := false
		for _, sp := range d.Spans {
			if sp.Attributes["gen_ai.agent.name"] == "evaluateJs" {
				require.Equal(t, "Run JavaScript in a sandbox and return its result and console output.", sp.Attributes["gen_ai.agent.description"])
				found = true
			}
		}
		require.True(t, found, "run %d", seed)
	}
}

func TestAFailedWriteLeavesNoReferenceToItsTexts(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	// A write that fails (its context is cancelled) stores no texts, and
	// the parts encoded after it carry theirs in place again.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.Error(t, s.WriteParts(cancelled, runParts(fixture.Run{Seed: 1})))
	require.NoError(t, s.WriteParts(ctx, runParts(fixture.Run{Seed: 2})))
	require.NoError(t, s.WriteParts(ctx, runParts(fixture.Run{Seed: 3})))
	for _, seed := range []uint64{2, 3} {
		d, err := s.Trace(ctx, fixture.IDs(seed).String())
		require.NoError(t, err)
		require.Len(t, d.Spans, 6)
	}
	_, err := s.Trace(ctx, fixture.IDs(1).String())
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestWritePartsOfManyTracesInOneWrite writes n runs in one WriteParts
// call (so the summaries go through upsert statements of every size), the
// first run split in two parts of the same write: the traces and their
// summaries are what exporting the runs stores, and writing the parts
// again changes nothing.
func TestWritePartsOfManyTracesInOneWrite(t *testing.T) {
	ctx := context.Background()
	start := time.Now().Add(-time.Hour)
	for _, n := range []int{1, 5, 21, 85} {
		t.Run(fmt.Sprintf("runs=%d", n), func(t *testing.T) {
			runs := make([]fixture.Run, n)
			for i := range runs {
				runs[i] = fixture.Run{Seed: uint64(i + 1), Start: start.Add(time.Duration(i) * time.Second)}
				if i%3 == 1 {
					runs[i].Outcome = fixture.Failed
				}
			}
			exported := openTemp(t, store.Config{})
			export(t, exported, runs...)
			parts := runParts(runs...)
			first := parts[0]
			require.Greater(t, len(first.Spans), 2)
			parts[0].Spans = first.Spans[2:]
			parts = append(parts, store.Part{TraceID: first.TraceID, Spans: first.Spans[:2]})
			written := openTemp(t, store.Config{})
			require.NoError(t, written.WriteParts(ctx, parts))

			want, err := exported.Traces(ctx, store.Query{Limit: store.MaxLimit})
			require.NoError(t, err)
			got, err := written.Traces(ctx, store.Query{Limit: store.MaxLimit})
			require.NoError(t, err)
			require.Len(t, got.Traces, n)
			for i := range want.Traces {
				want.Traces[i].Seq = got.Traces[i].Seq
			}
			require.Equal(t, want.Traces, got.Traces)

			// Written again (a retried write), nothing changes.
			require.NoError(t, written.WriteParts(ctx, parts))
			again, err := written.Traces(ctx, store.Query{Limit: store.MaxLimit})
			require.NoError(t, err)
			for i := range again.Traces {
				again.Traces[i].Seq = got.Traces[i].Seq
			}
			require.Equal(t, got.Traces, again.Traces)
		})
	}
}

// TestSharedTextsAreBounded: runs whose long values never repeat fill the
// shared texts only up to the store's bound, counted over every process
// writing to the file; past it, values are stored within their runs and
// read back the same.
func TestSharedTextsAreBounded(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		size      int64
		rows      int // most texts the table may hold
		bytesUpTo int64
	}{
		{name: "by count", n: 6, rows: 6},
		{name: "by size", size: 1000, bytesUpTo: 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "traces.db")
			a, err := store.Open(ctx, store.Config{Path: path, MaxSharedTexts: tc.n, MaxSharedTextBytes: tc.size})
			require.NoError(t, err)
			defer a.Close()
			b, err := store.Open(ctx, store.Config{Path: path, MaxSharedTexts: tc.n, MaxSharedTextBytes: tc.size})
			require.NoError(t, err)
			defer b.Close()
			start := time.Now().Add(-time.Hour)
			desc := func(i int) string {
				return fmt.Sprintf("Agent number %03d, whose description is long enough to be shared between runs.", i)
			}
			for i := range 40 {
				rec := &store.Record{
					SpanID: trace.SpanID{1, byte(i + 1)}, Name: "invoke_agent a", Kind: trace.SpanKindInternal,
					Start: start.Add(time.Duration(i) * time.Second), End: start.Add(time.Duration(i)*time.Second + time.Millisecond),
					Attributes: []attribute.KeyValue{
						attribute.String("gen_ai.agent.name", "a"+strconv.Itoa(i)),
						attribute.String("gen_ai.agent.description", desc(i)),
					},
				}
				s := a
				if i%2 == 1 {
					s = b
				}
				require.NoError(t, s.WriteParts(ctx, []store.Part{{TraceID: fixture.IDs(uint64(1000 + i)), Spans: []*store.Record{rec}}}))
			}
			db, err := sql.Open("sqlite", "file:"+path+"?_query_only=1")
			require.NoError(t, err)
			defer db.Close()
			var rows int
			var size int64
			require.NoError(t, db.QueryRow(`SELECT count(*), coalesce(sum(length(CAST(value AS BLOB))), 0) FROM texts`).Scan(&rows, &size))
			require.Positive(t, rows)
			if tc.rows > 0 {
				require.LessOrEqual(t, rows, tc.rows)
			}
			if tc.bytesUpTo > 0 {
				require.LessOrEqual(t, size, tc.bytesUpTo)
			}
			for i := range 40 {
				d, err := a.Trace(ctx, fixture.IDs(uint64(1000+i)).String())
				require.NoError(t, err)
				require.Len(t, d.Spans, 1)
				require.Equal(t, desc(i), d.Spans[0].Attributes["gen_ai.agent.description"], "run %d", i)
			}
		})
	}
}

// TestSharedTextsFoundInBatches: a store opened afresh finds texts
// another wrote, more of them in one write than one lookup query takes,
// and stores none of them again.
func TestSharedTextsFoundInBatches(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	start := time.Now().Add(-time.Hour)
	desc := func(i int) string {
		return fmt.Sprintf("Agent number %03d, whose description is long enough to be shared between runs.", i)
	}
	part := func(seed uint64) []store.Part {
		var recs []*store.Record
		for i := range 250 {
			recs = append(recs, &store.Record{
				SpanID: trace.SpanID{byte(seed), byte(i >> 8), byte(i)}, Name: "invoke_agent a", Kind: trace.SpanKindInternal,
				Start: start.Add(time.Duration(i) * time.Second), End: start.Add(time.Duration(i)*time.Second + time.Millisecond),
				Attributes: []attribute.KeyValue{
					attribute.String("gen_ai.agent.name", "a"+strconv.Itoa(i)),
					attribute.String("gen_ai.agent.description", desc(i)),
				},
			})
		}
		return []store.Part{{TraceID: fixture.IDs(seed), Spans: recs}}
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_query_only=1")
	require.NoError(t, err)
	defer db.Close()
	count := func() int {
		var n int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM texts`).Scan(&n))
		return n
	}
	for i, seed := range []uint64{7, 8, 9} {
		s, err := store.Open(ctx, store.Config{Path: path})
		require.NoError(t, err)
		require.NoError(t, s.WriteParts(ctx, part(seed)))
		require.NoError(t, s.Close())
		if i == 0 {
			require.Greater(t, count(), 250, "the keys and every description are stored")
		}
		require.Equal(t, 252, count(), "write %d stores no text twice", i)
	}
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	for _, seed := range []uint64{7, 8, 9} {
		d, err := s.Trace(ctx, fixture.IDs(seed).String())
		require.NoError(t, err)
		require.Len(t, d.Spans, 250)
		got := map[string]bool{}
		for _, sp := range d.Spans {
			got[sp.Attributes["gen_ai.agent.description"].(string)] = true
		}
		require.Len(t, got, 250)
		require.True(t, got[desc(249)])
	}
}
