package postgres

import (
	"context"
	"testing"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/checkpointtest"
	"github.com/stretchr/testify/require"
)

// openTemp opens a store in a schema of its own (see testSchema).
func openTemp(t *testing.T) *Store {
	t.Helper()
	schema := testSchema(t)
	s, err := Open(context.Background(), Config{DSN: testDSN(t), Schema: schema})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func TestConformance(t *testing.T) {
	testDSN(t)
	checkpointtest.Run(t, func(t *testing.T) checkpoint.Store { return openTemp(t) },
		checkpointtest.WithCorrupt(func(t *testing.T, s checkpoint.Store, runID string, seq int64, d checkpointtest.Damage) {
			set := map[checkpointtest.Damage]string{
				checkpointtest.DamageJSON:   `state = decode('7b2261223a', 'hex')`, // {"a":
				checkpointtest.DamageFormat: `format = 99`,
				checkpointtest.DamageMeta:   `meta = '["not", "an object"]'::jsonb`,
			}[d]
			db := s.(*Store).db
			_, err := db.pool.Exec(context.Background(), db.q(`UPDATE {checkpoints} SET `+set+` WHERE run_id = $1 AND seq = $2`), runID, seq)
			require.NoError(t, err)
		}))
}

func TestSessionsConformance(t *testing.T) {
	testDSN(t)
	checkpointtest.RunSessions(t, func(t *testing.T) checkpoint.SessionStore {
		// On a pool of the test's own, through Config.Pool.
		s, err := OpenSessions(context.Background(), Config{Pool: testPool(t), Schema: testSchema(t)})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return s
	}, checkpointtest.WithCorruptTurn(func(t *testing.T, s checkpoint.SessionStore, sessionID string, turn int, d checkpointtest.Damage) {
		set := map[checkpointtest.Damage]string{
			checkpointtest.DamageJSON:   `body = decode('5b312c', 'hex')`, // [1,
			checkpointtest.DamageFormat: `format = 0`,
		}[d]
		db := s.(*Sessions).db
		_, err := db.pool.Exec(context.Background(), db.q(`UPDATE {session_turns} SET `+set+` WHERE session_id = $1 AND turn = $2`), sessionID, turn)
		require.NoError(t, err)
	}))
}

// TestProcesses races writers in several processes on one new schema (so
// they also race to create it) and kills one mid-write.
func TestProcesses(t *testing.T) {
	checkpointtest.RunProcesses(t, testSchema(t), openBoth)
}
