package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

// A Put waiting for another process's write lock stops when its context
// ends, well before the busy timeout.
func TestPutWaitingIsCanceled(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wait.db")
	s, err := Open(ctx, Config{Path: path, BusyTimeout: time.Minute})
	require.NoError(t, err)
	defer s.Close()

	other, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	require.NoError(t, err)
	defer conn.ExecContext(ctx, "ROLLBACK") //nolint:errcheck // best effort

	tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Put(tctx, checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: time.Unix(1, 0)})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 30*time.Second, "the context, not the busy timeout, ended the wait")
}
