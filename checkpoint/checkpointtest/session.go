package checkpointtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

// RunSessions runs the conformance suite for a [checkpoint.SessionStore].
// open must return a fresh, empty store each time it is called.
func RunSessions(t *testing.T, open func(t *testing.T) checkpoint.SessionStore, opts ...Option) {
	cfg := newConfig(opts)
	t.Run("RoundTrip", func(t *testing.T) { testSessionRoundTrip(t, open(t)) })
	t.Run("Invalid", func(t *testing.T) { testSessionInvalid(t, open(t)) })
	t.Run("CompareAndSwap", func(t *testing.T) { testSessionCAS(t, open(t)) })
	t.Run("ConcurrentWriters", func(t *testing.T) { testSessionConcurrent(t, open(t), cfg.writers, cfg.rounds) })
	t.Run("Sessions", func(t *testing.T) { testSessionList(t, open(t)) })
	t.Run("Delete", func(t *testing.T) { testSessionDelete(t, open(t)) })
	t.Run("Closed", func(t *testing.T) { testSessionClosed(t, open(t)) })
	t.Run("Canceled", func(t *testing.T) { testSessionCanceled(t, open(t)) })
	t.Run("Corrupt", func(t *testing.T) {
		if cfg.corruptTurn == nil {
			t.Skip("the store gave no way to damage a row (WithCorruptTurn)")
		}
		testSessionCorrupt(t, open, cfg.corruptTurn)
	})
}

// turns returns n JSON turns labelled with prefix.
func turns(prefix string, n int) []json.RawMessage {
	out := make([]json.RawMessage, n)
	for i := range out {
		out[i] = json.RawMessage(fmt.Sprintf(`{"role":"user","text":"%s %d"}`, prefix, i))
	}
	return out
}

func appendTurns(t *testing.T, s checkpoint.SessionStore, id string, after int, ts ...json.RawMessage) {
	t.Helper()
	require.NoError(t, s.Append(context.Background(), id, after, ts...), "append to %s after %d", id, after)
}

func testSessionRoundTrip(t *testing.T, s checkpoint.SessionStore) {
	ctx := context.Background()
	got, err := s.Load(ctx, "unknown")
	require.NoError(t, err)
	require.Empty(t, got, "an unknown session has no turns")

	first := []json.RawMessage{
		json.RawMessage(`{"role":"user","text":"hi ✓"}`),
		json.RawMessage("{ \"role\" : \"assistant\",\n \"text\":\"hello\" }"),
	}
	appendTurns(t, s, "s", 0, first...)
	last := json.RawMessage(`"a plain string turn"`)
	appendTurns(t, s, "s", 2, last)

	got, err = s.Load(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, []json.RawMessage{first[0], first[1], last}, got, "turns kept in order, byte for byte")

	// Copies in and out.
	first[0][2] = 'X'
	got[1][2] = 'Y'
	again, err := s.Load(ctx, "s")
	require.NoError(t, err)
	require.JSONEq(t, `{"role":"user","text":"hi ✓"}`, string(again[0]))
	require.JSONEq(t, `{"role":"assistant","text":"hello"}`, string(again[1]))

	big := json.RawMessage(`"` + strings.Repeat("y", 300_000) + `"`)
	appendTurns(t, s, "s", 3, big)
	again, err = s.Load(ctx, "s")
	require.NoError(t, err)
	require.Len(t, again, 4)
	require.Equal(t, big, again[3])
}

func testSessionInvalid(t *testing.T, s checkpoint.SessionStore) {
	ctx := context.Background()
	cases := []struct {
		name, id, want string
		after          int
		turns          []json.RawMessage
	}{
		{"empty id", "", "session id is empty", 0, turns("t", 1)},
		{"long id", strings.Repeat("s", 257), "more than 256", 0, turns("t", 1)},
		{"negative after", "s", "after is -1", -1, turns("t", 1)},
		{"no turns", "s", "no turns", 0, nil},
		{"invalid JSON", "s", "turn 2", 0, []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{`)}},
		{"empty turn", "s", "turn 1", 0, []json.RawMessage{nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Append(ctx, c.id, c.after, c.turns...)
			require.ErrorIs(t, err, checkpoint.ErrInvalid)
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, "checkpoint/")
		})
	}
	got, err := s.Load(ctx, "s")
	require.NoError(t, err)
	require.Empty(t, got, "nothing was written")
	_, err = s.Load(ctx, "")
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	_, err = s.Sessions(ctx, -1)
	require.ErrorIs(t, err, checkpoint.ErrInvalid)
	require.ErrorIs(t, s.Delete(ctx, ""), checkpoint.ErrInvalid)
}

func testSessionCAS(t *testing.T, s checkpoint.SessionStore) {
	ctx := context.Background()
	appendTurns(t, s, "s", 0, turns("first", 2)...)
	var ce *checkpoint.ConflictError
	for _, after := range []int{0, 1, 3, 10} {
		err := s.Append(ctx, "s", after, turns("lost", 1)...)
		require.ErrorIs(t, err, checkpoint.ErrConflict, "after %d", after)
		require.ErrorAs(t, err, &ce)
		require.Equal(t, checkpoint.ConflictError{SessionID: "s", Want: int64(after), Have: 2}, *ce)
		require.ErrorContains(t, err, `session "s"`)
		require.ErrorContains(t, err, "Load")
	}
	err := s.Append(ctx, "new", 1, turns("lost", 1)...)
	require.ErrorIs(t, err, checkpoint.ErrConflict, "a new session has 0 turns")
	got, err := s.Load(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, turns("first", 2), got, "a losing Append writes nothing")
	got, err = s.Load(ctx, "new")
	require.NoError(t, err)
	require.Empty(t, got)
	list, err := s.Sessions(ctx, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)
}

func testSessionConcurrent(t *testing.T, s checkpoint.SessionStore, writers, rounds int) {
	ctx := context.Background()
	var want []json.RawMessage
	for round := range rounds {
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[w] = s.Append(ctx, "contended", round, json.RawMessage(fmt.Sprintf(`{"round":%d,"writer":%d}`, round, w)))
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for w, err := range errs {
			switch {
			case err == nil:
				won++
				want = append(want, json.RawMessage(fmt.Sprintf(`{"round":%d,"writer":%d}`, round, w)))
			case errors.Is(err, checkpoint.ErrConflict):
			default:
				t.Fatalf("round %d writer %d: want nil or ErrConflict, got %v", round, w, err)
			}
		}
		require.Equal(t, 1, won, "round %d: exactly one writer appends", round)
	}
	got, err := s.Load(ctx, "contended")
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func testSessionList(t *testing.T, s checkpoint.SessionStore) {
	ctx := context.Background()
	list, err := s.Sessions(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, list)

	appendTurns(t, s, "a", 0, turns("a", 2)...)
	appendTurns(t, s, "b", 0, turns("b", 1)...)
	appendTurns(t, s, "c", 0, turns("c", 3)...)
	appendTurns(t, s, "a", 2, turns("a2", 1)...)

	list, err = s.Sessions(ctx, 0)
	require.NoError(t, err)
	require.Len(t, list, 3)
	counts := map[string]int{}
	for _, si := range list {
		counts[si.ID] = si.Turns
		require.False(t, si.Created.IsZero(), si.ID)
		require.False(t, si.Updated.Before(si.Created), si.ID)
	}
	require.Equal(t, map[string]int{"a": 3, "b": 1, "c": 3}, counts)
	sorted := slices.IsSortedFunc(list, func(x, y checkpoint.SessionInfo) int {
		if c := y.Updated.Compare(x.Updated); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	require.True(t, sorted, "newest-updated first, ties by id: %+v", list)
	for _, si := range list {
		require.False(t, si.Updated.After(list[0].Updated))
	}
	var a checkpoint.SessionInfo
	for _, si := range list {
		if si.ID == "a" {
			a = si
		}
	}
	require.Equal(t, list[0].Updated, a.Updated, "the session appended to last is the most recently updated")
	require.True(t, a.Updated.After(a.Created) || a.Updated.Equal(a.Created))

	limited, err := s.Sessions(ctx, 2)
	require.NoError(t, err)
	require.Equal(t, list[:2], limited)
}

func testSessionDelete(t *testing.T, s checkpoint.SessionStore) {
	ctx := context.Background()
	appendTurns(t, s, "s", 0, turns("s", 3)...)
	appendTurns(t, s, "other", 0, turns("o", 2)...)
	require.NoError(t, s.Delete(ctx, "s"))
	got, err := s.Load(ctx, "s")
	require.NoError(t, err)
	require.Empty(t, got)
	got, err = s.Load(ctx, "other")
	require.NoError(t, err)
	require.Equal(t, turns("o", 2), got, "other sessions are untouched")
	list, err := s.Sessions(ctx, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.NoError(t, s.Delete(ctx, "s"), "deleting an unknown session is not an error")
	appendTurns(t, s, "s", 0, turns("again", 1)...)
	got, err = s.Load(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, turns("again", 1), got)
}

// callAllSessions calls every method of s but Close with ctx and returns
// each one's error by method name.
func callAllSessions(ctx context.Context, s checkpoint.SessionStore) map[string]error {
	errs := map[string]error{}
	errs["Append"] = s.Append(ctx, "s", 1, turns("x", 1)...)
	_, errs["Load"] = s.Load(ctx, "s")
	_, errs["Sessions"] = s.Sessions(ctx, 0)
	errs["Delete"] = s.Delete(ctx, "s")
	return errs
}

func testSessionClosed(t *testing.T, s checkpoint.SessionStore) {
	appendTurns(t, s, "s", 0, turns("s", 1)...)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice is not an error")
	for name, err := range callAllSessions(context.Background(), s) {
		require.ErrorIs(t, err, checkpoint.ErrClosed, name)
		require.ErrorContains(t, err, "checkpoint/", name)
		if name != "Sessions" {
			require.ErrorContains(t, err, `session "s"`, name)
		}
	}
}

func testSessionCanceled(t *testing.T, s checkpoint.SessionStore) {
	appendTurns(t, s, "s", 0, turns("s", 1)...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, err := range callAllSessions(ctx, s) {
		require.ErrorIs(t, err, context.Canceled, name)
	}
	got, err := s.Load(context.Background(), "s")
	require.NoError(t, err)
	require.Equal(t, turns("s", 1), got, "nothing was written or deleted")
}

func testSessionCorrupt(t *testing.T, open func(t *testing.T) checkpoint.SessionStore, corrupt CorruptTurnFunc) {
	for _, d := range []Damage{DamageJSON, DamageFormat} {
		t.Run(d.String(), func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			appendTurns(t, s, "bad", 0, turns("bad", 3)...)
			appendTurns(t, s, "good", 0, turns("good", 2)...)
			corrupt(t, s, "bad", 2, d)

			var ce *checkpoint.CorruptError
			_, err := s.Load(ctx, "bad")
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			require.ErrorAs(t, err, &ce)
			require.Equal(t, "bad", ce.SessionID)
			require.Equal(t, int64(2), ce.Seq)
			require.ErrorContains(t, err, `"bad"`)
			require.ErrorContains(t, err, "Delete")
			t.Logf("%s: %v", d, err)

			got, err := s.Load(ctx, "good")
			require.NoError(t, err)
			require.Equal(t, turns("good", 2), got)
			require.NoError(t, s.Delete(ctx, "bad"))
			appendTurns(t, s, "bad", 0, turns("fresh", 1)...)
		})
	}
}
