package checkpointtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

// base is the time of the suite's first checkpoint: not UTC and with
// nanoseconds, so stores must keep both the instant and its precision.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("UTC+2", 2*3600))

// at returns base plus i seconds.
func at(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }

// Run runs the conformance suite for a [checkpoint.Store]. open must return
// a fresh, empty store each time it is called.
func Run(t *testing.T, open func(t *testing.T) checkpoint.Store, opts ...Option) {
	cfg := newConfig(opts)
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, open(t)) })
	t.Run("CopiesInAndOut", func(t *testing.T) { testCopies(t, open(t)) })
	t.Run("Invalid", func(t *testing.T) { testInvalid(t, open(t)) })
	t.Run("CompareAndSwap", func(t *testing.T) { testCAS(t, open(t)) })
	t.Run("ConcurrentWriters", func(t *testing.T) { testConcurrentPut(t, open(t), cfg.writers, cfg.rounds) })
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, open(t)) })
	t.Run("ListFrom", func(t *testing.T) { testListFrom(t, open(t)) })
	t.Run("Isolation", func(t *testing.T) { testIsolation(t, open(t)) })
	t.Run("Runs", func(t *testing.T) { testRuns(t, open(t)) })
	t.Run("Prune", func(t *testing.T) { testPrune(t, open(t)) })
	t.Run("Delete", func(t *testing.T) { testDelete(t, open(t)) })
	t.Run("Closed", func(t *testing.T) { testClosed(t, open(t)) })
	t.Run("Canceled", func(t *testing.T) { testCanceled(t, open(t)) })
	t.Run("Corrupt", func(t *testing.T) {
		if cfg.corrupt == nil {
			t.Skip("the store gave no way to damage a row (WithCorrupt)")
		}
		testCorrupt(t, open, cfg.corrupt)
	})
}

// put puts cp and fails the test on an error.
func put(t *testing.T, s checkpoint.Store, cp checkpoint.Checkpoint) {
	t.Helper()
	require.NoError(t, s.Put(context.Background(), cp), "put %s/%d", cp.RunID, cp.Seq)
}

// line puts n checkpoints 1..n to run id, the i-th at time at(start+i).
func line(t *testing.T, s checkpoint.Store, id string, n, start int, meta map[string]string) []checkpoint.Checkpoint {
	t.Helper()
	var out []checkpoint.Checkpoint
	for i := 1; i <= n; i++ {
		cp := checkpoint.Checkpoint{
			RunID: id, Seq: int64(i), Kind: "step", Time: at(start + i),
			State: json.RawMessage(fmt.Sprintf(`{"run":%q,"seq":%d}`, id, i)), Meta: meta,
		}
		put(t, s, cp)
		out = append(out, stored(cp))
	}
	return out
}

// stored returns cp as a store reads it back.
func stored(cp checkpoint.Checkpoint) checkpoint.Checkpoint {
	cp.Time = checkpoint.StoredTime(cp.Time)
	if len(cp.State) == 0 {
		cp.State = nil
	}
	if len(cp.Events) == 0 {
		cp.Events = nil
	}
	if len(cp.Meta) == 0 {
		cp.Meta = nil
	}
	return cp
}

func testRoundTrip(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	cps := []checkpoint.Checkpoint{
		{RunID: "run-1", Seq: 1, Kind: "start", Time: base,
			Events: json.RawMessage(`[{"kind":"run_start"}]`),
			Meta:   map[string]string{"agent": "coder", "session": "s-1", "note": "ünïcode ✓"}},
		{RunID: "run-1", Seq: 2, Kind: "step", Time: base.Add(time.Nanosecond),
			State:  json.RawMessage("{ \"messages\" : [ 1, 2.50, \"x\" ],\n \"b\": null }"),
			Events: json.RawMessage{}, Meta: map[string]string{}},
		{RunID: "run-1", Seq: 3, Kind: "", Time: base.Add(time.Hour).UTC(),
			State: json.RawMessage(`"just a string"`), Events: json.RawMessage(`null`)},
		{RunID: "run-1", Seq: 4, Kind: "end", Time: time.Date(2262, 1, 1, 0, 0, 0, 1, time.UTC),
			State: json.RawMessage(`{"big":"` + strings.Repeat("x", 200_000) + `"}`)},
	}
	for _, cp := range cps {
		put(t, s, cp)
	}
	want := make([]checkpoint.Checkpoint, len(cps))
	for i, cp := range cps {
		want[i] = stored(cp)
	}
	require.Equal(t, time.UTC, want[0].Time.Location())
	require.Equal(t, base.UnixNano(), want[0].Time.UnixNano())

	head, err := s.Head(ctx, "run-1")
	require.NoError(t, err)
	require.Equal(t, want[3], head)
	for _, w := range want {
		got, err := s.Get(ctx, "run-1", w.Seq)
		require.NoError(t, err)
		require.Equal(t, w, got, "checkpoint %d", w.Seq)
		require.Equal(t, time.UTC, got.Time.Location())
	}
	all, err := s.List(ctx, "run-1")
	require.NoError(t, err)
	require.Equal(t, want, all)
	// Opaque JSON is kept byte for byte, whitespace included.
	require.Equal(t, string(cps[1].State), string(all[1].State))
}

// testListFrom checks the tail read: the store's own ListFrom when it
// has one, and checkpoint.ListFrom's fallback over List (the same
// answers).
func testListFrom(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	want := line(t, s, "tail", 5, 0, map[string]string{"k": "v"})
	line(t, s, "other", 3, 0, nil)
	_, own := s.(checkpoint.TailReader)
	require.True(t, own, "%T reads a run's tail in one call (checkpoint.TailReader)", s)
	for name, st := range map[string]checkpoint.Store{"own": s, "fallback": listOnly{s}} {
		t.Run(name, func(t *testing.T) {
			for from := int64(1); from <= 5; from++ {
				got, err := checkpoint.ListFrom(ctx, st, "tail", from)
				require.NoError(t, err)
				require.Equal(t, want[from-1:], got, "from %d", from)
			}
			for _, c := range []struct {
				run  string
				from int64
				want error
			}{
				{"tail", 6, checkpoint.ErrNotFound},
				{"missing", 1, checkpoint.ErrNotFound},
				{"tail", 0, checkpoint.ErrInvalid},
				{"tail", -1, checkpoint.ErrInvalid},
			} {
				_, err := checkpoint.ListFrom(ctx, st, c.run, c.from)
				require.ErrorIs(t, err, c.want, "run %s from %d", c.run, c.from)
			}
		})
	}
}

// listOnly hides a store's ListFrom, for checkpoint.ListFrom's fallback.
type listOnly struct{ checkpoint.Store }

func testCopies(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	state := json.RawMessage(`{"a":1}`)
	meta := map[string]string{"k": "v"}
	put(t, s, checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: base, State: state, Meta: meta})
	state[2] = 'b'
	meta["k"] = "changed"
	meta["new"] = "x"

	got, err := s.Head(ctx, "r")
	require.NoError(t, err)
	require.JSONEq(t, `{"a":1}`, string(got.State))
	require.Equal(t, map[string]string{"k": "v"}, got.Meta)
	got.State[2] = 'c'
	got.Meta["k"] = "changed"
	list, err := s.List(ctx, "r")
	require.NoError(t, err)
	list[0].Meta["k"] = "changed too"

	again, err := s.Get(ctx, "r", 1)
	require.NoError(t, err)
	require.JSONEq(t, `{"a":1}`, string(again.State))
	require.Equal(t, map[string]string{"k": "v"}, again.Meta)
	runs, err := s.Runs(ctx, checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Len(t, runs, 1)
	runs[0].Meta["k"] = "changed"
	runs, err = s.Runs(ctx, checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"k": "v"}, runs[0].Meta)
}

func testInvalid(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	ok := checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: base}
	with := func(f func(*checkpoint.Checkpoint)) checkpoint.Checkpoint { cp := ok; f(&cp); return cp }
	cases := []struct {
		name, want string
		cp         checkpoint.Checkpoint
	}{
		{"empty run id", "run id is empty", with(func(c *checkpoint.Checkpoint) { c.RunID = "" })},
		{"long run id", "more than 256", with(func(c *checkpoint.Checkpoint) { c.RunID = strings.Repeat("r", 257) })},
		{"run id not UTF-8", "UTF-8", with(func(c *checkpoint.Checkpoint) { c.RunID = "r\xff" })},
		{"run id with NUL", "NUL", with(func(c *checkpoint.Checkpoint) { c.RunID = "r\x00" })},
		{"seq 0", "Seq must be 1 or more", with(func(c *checkpoint.Checkpoint) { c.Seq = 0 })},
		{"seq negative", "Seq must be 1 or more", with(func(c *checkpoint.Checkpoint) { c.Seq = -1 })},
		{"zero time", "Time is zero", with(func(c *checkpoint.Checkpoint) { c.Time = time.Time{} })},
		{"time out of range", "1678 to 2262", with(func(c *checkpoint.Checkpoint) { c.Time = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) })},
		{"state not JSON", "State is not valid JSON", with(func(c *checkpoint.Checkpoint) { c.State = json.RawMessage(`{"a":`) })},
		{"events not JSON", "Events is not valid JSON", with(func(c *checkpoint.Checkpoint) { c.Events = json.RawMessage(`nope`) })},
		{"meta empty key", "empty key", with(func(c *checkpoint.Checkpoint) { c.Meta = map[string]string{"": "v"} })},
		{"meta too big", "keep labels small", with(func(c *checkpoint.Checkpoint) {
			c.Meta = map[string]string{"a": strings.Repeat("x", 40<<10), "b": strings.Repeat("x", 40<<10)}
		})},
		{"kind too long", "Kind is", with(func(c *checkpoint.Checkpoint) { c.Kind = strings.Repeat("k", 300) })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Put(ctx, c.cp)
			require.ErrorIs(t, err, checkpoint.ErrInvalid)
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, "checkpoint/", "the error names the store")
		})
	}
	// Nothing was written.
	_, err := s.Head(ctx, "r")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)

	_, err = s.Head(ctx, "")
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	_, err = s.List(ctx, "")
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	_, err = s.Get(ctx, "r", 0)
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	require.ErrorIs(t, s.Delete(ctx, ""), checkpoint.ErrInvalid)
	_, err = s.Runs(ctx, checkpoint.RunFilter{Limit: -1})
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	require.ErrorContains(t, err, "Limit")
}

func testCAS(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	first := checkpoint.Checkpoint{RunID: "r", Seq: 1, Kind: "start", Time: base, State: json.RawMessage(`{"v":"first"}`)}
	put(t, s, first)

	var ce *checkpoint.ConflictError
	err := s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 1, Kind: "start", Time: at(1), State: json.RawMessage(`{"v":"second"}`)})
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, checkpoint.ConflictError{RunID: "r", Want: 0, Have: 1}, *ce)
	require.ErrorContains(t, err, `run "r"`)
	require.ErrorContains(t, err, "read Head")

	err = s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 3, Time: at(2)})
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, checkpoint.ConflictError{RunID: "r", Want: 2, Have: 1}, *ce)

	// A new run starts at 1.
	err = s.Put(ctx, checkpoint.Checkpoint{RunID: "new", Seq: 2, Time: base})
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	_, err = s.Head(ctx, "new")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)

	all, err := s.List(ctx, "r")
	require.NoError(t, err)
	require.Equal(t, []checkpoint.Checkpoint{stored(first)}, all, "a losing Put writes nothing")
	runs, err := s.Runs(ctx, checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, int64(1), runs[0].Head)

	put(t, s, checkpoint.Checkpoint{RunID: "r", Seq: 2, Time: at(3)})
	head, err := s.Head(ctx, "r")
	require.NoError(t, err)
	require.Equal(t, int64(2), head.Seq)
}

func testConcurrentPut(t *testing.T, s checkpoint.Store, writers, rounds int) {
	ctx := context.Background()
	winners := make([]int, rounds+1)
	for seq := 1; seq <= rounds; seq++ {
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[w] = s.Put(ctx, checkpoint.Checkpoint{
					RunID: "contended", Seq: int64(seq), Kind: "step", Time: at(seq),
					State: json.RawMessage(fmt.Sprintf(`{"writer":%d}`, w)),
				})
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for w, err := range errs {
			switch {
			case err == nil:
				won++
				winners[seq] = w
			case errors.Is(err, checkpoint.ErrConflict):
			default:
				t.Fatalf("round %d writer %d: want nil or ErrConflict, got %v", seq, w, err)
			}
		}
		require.Equal(t, 1, won, "round %d: exactly one writer wins the next Seq", seq)
	}
	all, err := s.List(ctx, "contended")
	require.NoError(t, err)
	require.Len(t, all, rounds)
	for i, cp := range all {
		require.Equal(t, int64(i+1), cp.Seq)
		require.JSONEq(t, fmt.Sprintf(`{"writer":%d}`, winners[i+1]), string(cp.State), "the winner's checkpoint is the one stored")
	}
}

func testNotFound(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	var nf *checkpoint.NotFoundError
	_, err := s.Head(ctx, "nope")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	require.ErrorAs(t, err, &nf)
	require.Equal(t, "nope", nf.RunID)
	require.ErrorContains(t, err, `"nope"`)
	_, err = s.List(ctx, "nope")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	_, err = s.Get(ctx, "nope", 1)
	require.ErrorIs(t, err, checkpoint.ErrNotFound)

	line(t, s, "r", 2, 0, nil)
	_, err = s.Get(ctx, "r", 3)
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	require.ErrorAs(t, err, &nf)
	require.Equal(t, checkpoint.NotFoundError{RunID: "r", Seq: 3}, *nf)
	require.ErrorContains(t, err, "List")
}

func testIsolation(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	ids := []string{"a", "a2", "A", "a%", "a_", `a"'; DROP TABLE x; --`, "ü/☃", strings.Repeat("z", checkpoint.MaxIDBytes)}
	lines := map[string][]checkpoint.Checkpoint{}
	for i, id := range ids {
		lines[id] = line(t, s, id, i%3+1, i*10, map[string]string{"id": id})
	}
	for _, id := range ids {
		got, err := s.List(ctx, id)
		require.NoError(t, err)
		require.Equal(t, lines[id], got, "run %q", id)
	}
	require.NoError(t, s.Delete(ctx, "a"))
	_, err := s.Head(ctx, "a")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	for _, id := range ids[1:] {
		got, err := s.List(ctx, id)
		require.NoError(t, err)
		require.Equal(t, lines[id], got, "run %q after deleting another", id)
	}
	runs, err := s.Runs(ctx, checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Len(t, runs, len(ids)-1)
}

func testRuns(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	runs, err := s.Runs(ctx, checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Empty(t, runs)

	// Runs and their head times: c newest, then a and b tied, then d.
	line(t, s, "a", 3, 100, map[string]string{"agent": "coder", "status": "running"}) // head at(103)
	line(t, s, "b", 1, 102, map[string]string{"agent": "coder"})                      // head at(103)
	line(t, s, "c", 2, 200, map[string]string{"agent": "writer", "status": "done"})
	line(t, s, "d", 1, 0, nil)
	put(t, s, checkpoint.Checkpoint{RunID: "a", Seq: 4, Kind: "end", Time: at(103),
		Meta: map[string]string{"agent": "coder", "status": "done", "x": "1"}})

	info := func(id string, head int64, kind string, created, updated int, meta map[string]string) checkpoint.RunInfo {
		return checkpoint.RunInfo{RunID: id, Head: head, Kind: kind, Created: checkpoint.StoredTime(at(created)),
			Updated: checkpoint.StoredTime(at(updated)), Meta: meta}
	}
	a := info("a", 4, "end", 101, 103, map[string]string{"agent": "coder", "status": "done", "x": "1"})
	b := info("b", 1, "step", 103, 103, map[string]string{"agent": "coder"})
	c := info("c", 2, "step", 201, 202, map[string]string{"agent": "writer", "status": "done"})
	d := info("d", 1, "step", 1, 1, nil)

	cases := []struct {
		name string
		f    checkpoint.RunFilter
		want []checkpoint.RunInfo
	}{
		{"all, newest first, ties by id", checkpoint.RunFilter{}, []checkpoint.RunInfo{c, a, b, d}},
		{"limit", checkpoint.RunFilter{Limit: 2}, []checkpoint.RunInfo{c, a}},
		{"limit above count", checkpoint.RunFilter{Limit: 50}, []checkpoint.RunInfo{c, a, b, d}},
		{"updated before", checkpoint.RunFilter{UpdatedBefore: at(202)}, []checkpoint.RunInfo{a, b, d}},
		{"updated before is strict", checkpoint.RunFilter{UpdatedBefore: at(103)}, []checkpoint.RunInfo{d}},
		{"updated before, limit", checkpoint.RunFilter{UpdatedBefore: at(202), Limit: 1}, []checkpoint.RunInfo{a}},
		{"meta", checkpoint.RunFilter{Meta: map[string]string{"agent": "coder"}}, []checkpoint.RunInfo{a, b}},
		{"meta, two pairs", checkpoint.RunFilter{Meta: map[string]string{"agent": "coder", "status": "done"}}, []checkpoint.RunInfo{a}},
		{"meta of an older checkpoint does not count", checkpoint.RunFilter{Meta: map[string]string{"status": "running"}}, nil},
		{"meta, value differs", checkpoint.RunFilter{Meta: map[string]string{"agent": "nobody"}}, nil},
		{"meta with limit", checkpoint.RunFilter{Meta: map[string]string{"status": "done"}, Limit: 1}, []checkpoint.RunInfo{c}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Runs(ctx, tc.f)
			require.NoError(t, err)
			if len(tc.want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func testPrune(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	line(t, s, "old", 3, 0, nil)           // head at(3)
	line(t, s, "old-but-moved", 1, 0, nil) // moved below
	put(t, s, checkpoint.Checkpoint{RunID: "old-but-moved", Seq: 2, Time: at(500)})
	line(t, s, "edge", 1, 99, nil) // head exactly at(100)
	line(t, s, "new", 2, 1000, nil)

	n, err := s.Prune(ctx, time.Time{})
	require.NoError(t, err)
	require.Zero(t, n, "a zero time prunes nothing")

	n, err = s.Prune(ctx, at(100))
	require.NoError(t, err)
	require.Equal(t, 1, n, "only runs whose head is older")
	_, err = s.Head(ctx, "old")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	_, err = s.Get(ctx, "old", 1)
	require.ErrorIs(t, err, checkpoint.ErrNotFound, "the whole run goes")
	for _, id := range []string{"old-but-moved", "edge", "new"} {
		_, err := s.Head(ctx, id)
		require.NoError(t, err, id)
	}

	n, err = s.Prune(ctx, at(1001))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	runs, err := s.Runs(ctx, checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, "new", runs[0].RunID)

	// A pruned run id starts again at 1.
	line(t, s, "old", 1, 2000, nil)
}

func testDelete(t *testing.T, s checkpoint.Store) {
	ctx := context.Background()
	line(t, s, "r", 3, 0, nil)
	require.NoError(t, s.Delete(ctx, "r"))
	_, err := s.List(ctx, "r")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	runs, err := s.Runs(ctx, checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Empty(t, runs)
	require.NoError(t, s.Delete(ctx, "r"), "deleting an unknown run is not an error")
	again := line(t, s, "r", 1, 50, nil)
	got, err := s.List(ctx, "r")
	require.NoError(t, err)
	require.Equal(t, again, got)
}

// callAll calls every method of s but Close with ctx and returns each
// one's error by method name.
func callAll(ctx context.Context, s checkpoint.Store) map[string]error {
	errs := map[string]error{}
	errs["Put"] = s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 2, Time: at(5)})
	_, errs["Head"] = s.Head(ctx, "r")
	_, errs["Get"] = s.Get(ctx, "r", 1)
	_, errs["List"] = s.List(ctx, "r")
	_, errs["Runs"] = s.Runs(ctx, checkpoint.RunFilter{})
	_, errs["Prune"] = s.Prune(ctx, at(100))
	errs["Delete"] = s.Delete(ctx, "r")
	return errs
}

func testClosed(t *testing.T, s checkpoint.Store) {
	line(t, s, "r", 1, 0, nil)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice is not an error")
	for name, err := range callAll(context.Background(), s) {
		require.ErrorIs(t, err, checkpoint.ErrClosed, name)
		require.ErrorContains(t, err, "checkpoint/", name)
		if name != "Runs" && name != "Prune" {
			require.ErrorContains(t, err, `run "r"`, name)
		}
	}
}

func testCanceled(t *testing.T, s checkpoint.Store) {
	line(t, s, "r", 1, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, err := range callAll(ctx, s) {
		require.ErrorIs(t, err, context.Canceled, name)
	}
	all, err := s.List(context.Background(), "r")
	require.NoError(t, err)
	require.Len(t, all, 1, "nothing was written or deleted")
}

func testCorrupt(t *testing.T, open func(t *testing.T) checkpoint.Store, corrupt CorruptFunc) {
	for _, d := range []Damage{DamageJSON, DamageFormat, DamageMeta} {
		t.Run(d.String(), func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			line(t, s, "bad", 3, 0, map[string]string{"k": "v"})
			good := line(t, s, "good", 2, 0, nil)
			corrupt(t, s, "bad", 2, d)

			var ce *checkpoint.CorruptError
			_, err := s.Get(ctx, "bad", 2)
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			require.ErrorAs(t, err, &ce)
			require.Equal(t, "bad", ce.RunID)
			require.Equal(t, int64(2), ce.Seq)
			require.NotEmpty(t, ce.Reason)
			require.ErrorContains(t, err, `"bad"`)
			require.ErrorContains(t, err, "Delete", "the error says what to do")
			t.Logf("%s: %v", d, err)

			_, err = s.List(ctx, "bad")
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			// Rows around it still read.
			_, err = s.Get(ctx, "bad", 1)
			require.NoError(t, err)
			_, err = s.Head(ctx, "bad")
			require.NoError(t, err)
			got, err := s.List(ctx, "good")
			require.NoError(t, err)
			require.Equal(t, good, got)

			// The damaged head is reported too.
			corrupt(t, s, "bad", 3, d)
			_, err = s.Head(ctx, "bad")
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)

			// Deleting the run removes the bad rows.
			require.NoError(t, s.Delete(ctx, "bad"))
			line(t, s, "bad", 1, 10, nil)
		})
	}
}
