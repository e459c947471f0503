package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// spoolRuns returns the parts of synthetic runs with seeds from seed on,
// one part per run, and a part with every kind of attribute value, events
// and a remote parent.
func spoolRuns(seed uint64, n int) []store.Part {
	var parts []store.Part
	outcomes := []fixture.Outcome{fixture.OK, fixture.SandboxError, fixture.Failed}
	for i := range n {
		r := fixture.Run{Seed: seed + uint64(i), Outcome: outcomes[i%len(outcomes)], Start: time.Unix(1_800_000_000+int64(seed)+int64(i), 0)}
		parts = append(parts, partsOf(fixture.CoderSandbox(r).Snapshots())...)
	}
	return parts
}

// oddPart is one remote-parented span with attribute values of every type.
func oddPart(seed byte) store.Part {
	start := time.Unix(1_800_000_000, 123456789)
	return store.Part{TraceID: trace.TraceID{1, seed, 3}, Spans: []*store.Record{{
		SpanID: trace.SpanID{9, seed}, ParentID: trace.SpanID{8, 8}, RemoteParent: true,
		Name: "server span", Kind: trace.SpanKindServer, Start: start, End: start.Add(1500 * time.Microsecond),
		Status: codes.Error, StatusMessage: "failed: \u2028 \xff bytes",
		Attributes: []attribute.KeyValue{
			attribute.Bool("b", true), attribute.Int64("i", -1<<62), attribute.Float64("f", 3),
			attribute.Float64("g", 0.1), attribute.String("s", "héllo"), attribute.String("s", "later wins"),
			attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, -2}),
			attribute.Float64Slice("fs", []float64{1.5, 2}), attribute.StringSlice("ss", []string{"a", ""}),
			attribute.StringSlice("empty", nil),
		},
		Events: []store.RecordEvent{{Name: "exception", Time: start.Add(time.Millisecond),
			Attributes: []attribute.KeyValue{attribute.String("exception.message", "boom")}}},
		Scope: "scope/x",
	}}}
}

// contents returns every trace of s: its summary (without the write
// sequence, which differs between stores) and its spans.
func contents(t *testing.T, s *store.Store) map[string]store.TraceDetail {
	t.Helper()
	ctx := context.Background()
	page, err := s.Traces(ctx, store.Query{Limit: store.MaxLimit})
	require.NoError(t, err)
	out := map[string]store.TraceDetail{}
	for _, sum := range page.Traces {
		d, err := s.Trace(ctx, sum.TraceID)
		require.NoError(t, err)
		d.Summary.Seq = 0
		for i := range d.Parts {
			d.Parts[i].Seq = 0
		}
		out[sum.TraceID] = d
	}
	return out
}

// spoolFiles lists the spool folder of the database at path.
func spoolFiles(t *testing.T, path string) []string {
	t.Helper()
	entries, err := os.ReadDir(store.SpoolDir(path))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// spool writes parts, in batches of per, through a Spool of the database
// at path and closes it.
func spool(t *testing.T, path string, parts []store.Part, per int) {
	t.Helper()
	ctx := context.Background()
	sp, err := store.OpenSpool(ctx, store.Config{Path: path})
	require.NoError(t, err)
	for len(parts) > 0 {
		n := min(per, len(parts))
		require.NoError(t, sp.WriteParts(ctx, parts[:n]))
		parts = parts[n:]
	}
	require.NoError(t, sp.Close())
	require.NoError(t, sp.Close(), "closing twice is not an error")
}

// A spooled part is stored exactly as the same part written to the
// database: summaries, spans, attribute values of every type, events.
func TestSpoolStoresWhatADirectWriteStores(t *testing.T) {
	parts := append(spoolRuns(100, 6), oddPart(1), oddPart(2))
	for _, per := range []int{1, 3, len(parts)} {
		t.Run("per="+strconv.Itoa(per), func(t *testing.T) {
			ctx := context.Background()
			direct := openTemp(t, store.Config{})
			require.NoError(t, direct.WriteParts(ctx, parts))

			path := filepath.Join(t.TempDir(), "traces.db")
			spool(t, path, parts, per)
			_, err := os.Stat(path)
			require.ErrorIs(t, err, os.ErrNotExist, "a spool does not open the database")
			require.Len(t, spoolFiles(t, path), 1, "one file per process")

			viewer, err := store.Open(ctx, store.Config{Path: path})
			require.NoError(t, err)
			defer viewer.Close()
			require.Empty(t, spoolFiles(t, path), "the reader deletes what it stored")
			want := contents(t, direct)
			require.Len(t, want, 8)
			require.Equal(t, want, contents(t, viewer))
		})
	}
}

// A run still going shows in a reader's list as far as its spool file
// goes; the file stays its writer's, and the rest comes when it closes,
// each span once.
func TestSpoolOfARunningWriterIsReadAsItGoes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	run := spoolRuns(7, 1)[0]
	require.Len(t, run.Spans, 6)
	early := store.Part{TraceID: run.TraceID, Spans: run.Spans[:4]} // what an interval drains
	rest := store.Part{TraceID: run.TraceID, Spans: run.Spans[4:]}

	sp, err := store.OpenSpool(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer sp.Close()
	viewer, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer viewer.Close()

	require.NoError(t, sp.WriteParts(ctx, []store.Part{early}))
	for range 2 { // the second list reads nothing new
		page, err := viewer.Traces(ctx, store.Query{})
		require.NoError(t, err)
		require.Len(t, page.Traces, 1)
		require.Equal(t, store.StatusRunning, page.Traces[0].Status)
		require.Equal(t, int64(4), page.Traces[0].Spans)
	}
	names := spoolFiles(t, path)
	require.Len(t, names, 1)
	require.True(t, strings.HasSuffix(names[0], ".live"), names)

	// A viewer following the run reads its trace alone, and sees the rest.
	require.NoError(t, sp.WriteParts(ctx, []store.Part{rest}))
	d, err := viewer.Trace(ctx, run.TraceID.String())
	require.NoError(t, err)
	require.Len(t, d.Spans, 6)
	require.Equal(t, "ok", d.Summary.Status)
	require.NoError(t, sp.Close())
	require.True(t, strings.HasSuffix(spoolFiles(t, path)[0], ".spool"), "a closed spool has its final name")
	page, err := viewer.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, page.Traces, 1)
	require.Equal(t, "ok", page.Traces[0].Status)
	require.Equal(t, int64(6), page.Traces[0].Spans)
	require.Empty(t, spoolFiles(t, path))

	// A second reader that opens the database later sees the same.
	other, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer other.Close()
	require.Equal(t, contents(t, viewer), contents(t, other))
}

// A reader that dies after its commit and before it deletes the file
// leaves the file; the next reader stores it again and nothing changes.
func TestSpoolIngestIsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	spool(t, path, spoolRuns(40, 5), 2)
	names := spoolFiles(t, path)
	require.Len(t, names, 1)
	file := filepath.Join(store.SpoolDir(path), names[0])
	data, err := os.ReadFile(file)
	require.NoError(t, err)

	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	before := contents(t, s)
	require.Len(t, before, 5)
	spans, parts := counts(t, path)

	require.NoError(t, os.WriteFile(file, data, 0o600)) // as if the delete never happened
	require.Equal(t, before, contents(t, s), "Traces ingested the file again without a change")
	require.Empty(t, spoolFiles(t, path))
	again, againParts := counts(t, path)
	require.Equal(t, spans, again)
	require.Equal(t, parts, againParts)
}

// counts returns the database's span counter and part rows.
func counts(t *testing.T, path string) (spans, parts int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.QueryRow(`SELECT value FROM counters WHERE name = 'spans'`).Scan(&spans))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM parts`).Scan(&parts))
	var check string
	require.NoError(t, db.QueryRow("PRAGMA integrity_check").Scan(&check))
	require.Equal(t, "ok", check)
	return spans, parts
}

// Damaged files: a torn tail (a writer killed mid-write) is dropped and
// the file deleted; a frame that is whole but wrong sets the file aside.
// Either way the frames before are stored. A file of another format
// version is left to the loom that reads it.
func TestSpoolDamagedFiles(t *testing.T) {
	const (
		removed = iota
		setAside
		untouched
	)
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
		left   int
		traces int
	}{
		{"torn tail", func(b []byte) []byte { return append(b, b[:len(b)/2]...) }, removed, 2},
		{"short head", func(b []byte) []byte { return append(b, 'L', 'S') }, removed, 2},
		{"bad checksum", func(b []byte) []byte {
			bad := append([]byte(nil), b...)
			bad[len(bad)-1] ^= 0xff
			return append(b, bad...)
		}, setAside, 2},
		{"bad magic", func(b []byte) []byte { return append(b, []byte("garbage that is long enough")...) }, setAside, 2},
		{"another version", func(b []byte) []byte { b[3] = '9'; return b }, untouched, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "traces.db")
			spool(t, path, spoolRuns(60, 2), 2) // one frame
			file := filepath.Join(store.SpoolDir(path), spoolFiles(t, path)[0])
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, c.damage(data), 0o600))

			s, err := store.Open(ctx, store.Config{Path: path})
			require.NoError(t, err)
			defer s.Close()
			require.Len(t, contents(t, s), c.traces)
			left := spoolFiles(t, path)
			switch c.left {
			case removed:
				require.Empty(t, left)
			case setAside:
				require.Equal(t, []string{filepath.Base(file) + ".corrupt"}, left)
			case untouched:
				require.Equal(t, []string{filepath.Base(file)}, left)
			}
		})
	}
}

// Retention applies to spooled runs when they are stored.
func TestSpoolIngestPrunes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	spool(t, path, spoolRuns(300, 5), 1)
	s, err := store.Open(ctx, store.Config{Path: path, MaxTraces: 2})
	require.NoError(t, err)
	defer s.Close()
	page, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, page.Traces, 2)
	require.Equal(t, fixture.IDs(304).String(), page.Traces[0].TraceID, "the newest are kept")
}

// A folder of spool files that nobody reads stays bounded: the process
// that opens a spool while it holds many stores them first.
func TestOpenSpoolStoresAFullFolder(t *testing.T) {
	for _, c := range []struct {
		files  int
		stored bool
	}{{63, false}, {64, true}} {
		t.Run("files="+strconv.Itoa(c.files), func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "traces.db")
			runs := spoolRuns(500, c.files)
			for i := range runs {
				spool(t, path, runs[i:i+1], 1)
			}
			sp, err := store.OpenSpool(ctx, store.Config{Path: path})
			require.NoError(t, err)
			require.NoError(t, sp.Close())
			_, err = os.Stat(path)
			if !c.stored {
				require.ErrorIs(t, err, os.ErrNotExist)
				require.Len(t, spoolFiles(t, path), c.files)
				return
			}
			require.NoError(t, err)
			require.Empty(t, spoolFiles(t, path))
			spans, parts := counts(t, path)
			require.Equal(t, 6*c.files, spans)
			require.Equal(t, c.files, parts)
		})
	}
}

// A .tmp file is its writer's until it is renamed; one left by a writer
// that died before, an hour old and unlocked, is removed.
func TestSpoolRemovesStaleTmpFiles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	dir := store.SpoolDir(path)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	stale, fresh := filepath.Join(dir, "1-1-a.tmp"), filepath.Join(dir, "2-1-b.tmp")
	require.NoError(t, os.WriteFile(stale, nil, 0o600))
	require.NoError(t, os.WriteFile(fresh, nil, 0o600))
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.Equal(t, []string{"2-1-b.tmp"}, spoolFiles(t, path))
}

// Each writer writes only what its own EncodePart made.
func TestSpoolAndStoreRefuseEachOthersParts(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, store.Config{})
	sp, err := store.OpenSpool(ctx, store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	p := oddPart(3)
	require.ErrorIs(t, s.WriteEncoded(ctx, []store.EncodedPart{sp.EncodePart(&p)}), store.ErrWrongEncoder)
	require.ErrorIs(t, sp.WriteEncoded(ctx, []store.EncodedPart{s.EncodePart(&p)}), store.ErrWrongEncoder)
	require.NoError(t, sp.Close())
	require.ErrorIs(t, sp.WriteParts(ctx, []store.Part{p}), store.ErrClosed)
}

// A backlog larger than one transaction's share is stored whole, in
// several transactions.
func TestSpoolIngestOfABacklog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	const files = 300
	runs := spoolRuns(2000, files)
	spools := make([]*store.Spool, files)
	for i := range spools { // all opened before any file exists: none stores the folder
		sp, err := store.OpenSpool(ctx, store.Config{Path: path})
		require.NoError(t, err)
		spools[i] = sp
	}
	for i, sp := range spools {
		require.NoError(t, sp.WriteParts(ctx, runs[i:i+1]))
		require.NoError(t, sp.Close())
	}
	require.Len(t, spoolFiles(t, path), files)
	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	require.Empty(t, spoolFiles(t, path))
	spans, parts := counts(t, path)
	require.Equal(t, 6*files, spans)
	require.Equal(t, files, parts)
	page, err := s.Traces(ctx, store.Query{Limit: store.MaxLimit})
	require.NoError(t, err)
	require.Equal(t, int64(2), page.Seq, "two transactions")
}

// A program that records nothing leaves nothing; one whose spool folder
// cannot be made fails when it opens the spool, with advice.
func TestOpenSpoolEdges(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	sp, err := store.OpenSpool(ctx, store.Config{Path: path})
	require.NoError(t, err)
	require.Len(t, spoolFiles(t, path), 1, "the file is made when the spool opens")
	require.NoError(t, sp.Close())
	require.Empty(t, spoolFiles(t, path))

	blocked := filepath.Join(t.TempDir(), "traces.db")
	require.NoError(t, os.WriteFile(store.SpoolDir(blocked), nil, 0o600)) // a file where the folder goes
	_, err = store.OpenSpool(ctx, store.Config{Path: blocked})
	require.ErrorContains(t, err, "spool folder")
	require.ErrorContains(t, err, store.PathEnv)

	_, err = store.OpenSpool(ctx, store.Config{Path: path, MaxTraces: -2, PruneBatch: -1})
	require.ErrorIs(t, err, store.ErrInvalidConfig)
}
