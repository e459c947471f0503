package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/checkpointtest"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	checkpointtest.ChildMain(openBoth)
	goleak.VerifyTestMain(m)
}

// openBoth opens the checkpoint and session stores in one file.
func openBoth(ctx context.Context, path string) (checkpoint.Store, checkpoint.SessionStore, error) {
	s, err := Open(ctx, Config{Path: path})
	if err != nil {
		return nil, nil, err
	}
	sess, err := OpenSessions(ctx, Config{Path: path})
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, sess, nil
}

// TestProcesses races writers in several processes on one new file (so
// they also race to create its schema) and kills one mid-write.
func TestProcesses(t *testing.T) {
	checkpointtest.RunProcesses(t, filepath.Join(t.TempDir(), "shared.db"), openBoth)
}

// openTemp opens a store in a fresh file and closes it at the end of the
// test.
func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{Path: filepath.Join(t.TempDir(), "checkpoints.db")})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func TestConformance(t *testing.T) {
	checkpointtest.Run(t, func(t *testing.T) checkpoint.Store { return openTemp(t) },
		checkpointtest.WithCorrupt(func(t *testing.T, s checkpoint.Store, runID string, seq int64, d checkpointtest.Damage) {
			set := map[checkpointtest.Damage]string{
				checkpointtest.DamageJSON:   `state = X'7B2261223A'`, // {"a":
				checkpointtest.DamageFormat: `format = 99`,
				checkpointtest.DamageMeta:   `meta = '["not", "an object"]'`,
			}[d]
			_, err := s.(*Store).db.write.Exec(`UPDATE loom_checkpoints SET `+set+` WHERE run_id = ? AND seq = ?`, runID, seq)
			require.NoError(t, err)
		}))
}

func TestSessionsConformance(t *testing.T) {
	checkpointtest.RunSessions(t, func(t *testing.T) checkpoint.SessionStore {
		s, err := OpenSessions(context.Background(), Config{Path: filepath.Join(t.TempDir(), "sessions.db")})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return s
	}, checkpointtest.WithCorruptTurn(func(t *testing.T, s checkpoint.SessionStore, sessionID string, turn int, d checkpointtest.Damage) {
		set := map[checkpointtest.Damage]string{
			checkpointtest.DamageJSON:   `body = X'5B312C'`, // [1,
			checkpointtest.DamageFormat: `format = 0`,
		}[d]
		_, err := s.(*Sessions).db.write.Exec(`UPDATE loom_session_turns SET `+set+` WHERE session_id = ? AND turn = ?`, sessionID, turn)
		require.NoError(t, err)
	}))
}
