package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loomwork/loom/checkpoint"
	"github.com/stretchr/testify/require"
)

// A Put waiting for another transaction's lock on the run stops when its
// context ends, and the run is left as it was.
func TestPutWaitingIsCanceled(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.Put(ctx, checkpoint.Checkpoint{RunID: "r", Seq: 1, Time: time.Unix(1, 0)}))

	conn, err := pgx.Connect(ctx, testDSN(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, s.db.q(`SELECT head FROM {runs} WHERE run_id = 'r' FOR UPDATE`))
	require.NoError(t, err)

	tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	err = s.Put(tctx, checkpoint.Checkpoint{RunID: "r", Seq: 2, Time: time.Unix(2, 0)})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, `Put run "r"`)

	require.NoError(t, tx.Rollback(ctx))
	head, err := s.Head(ctx, "r")
	require.NoError(t, err)
	require.Equal(t, int64(1), head.Seq)
}
