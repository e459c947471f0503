package userfile

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

func TestOpenSQLite(t *testing.T) {
	db, err := OpenSQLite(filepath.Join(t.TempDir(), "a b.db"), time.Second, "page_size(16384)")
	require.NoError(t, err)
	defer db.Close()
	ctx := t.Context()

	_, err = db.Write.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`)
	require.NoError(t, err)
	var mode string
	require.NoError(t, db.Write.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode))
	require.Equal(t, "wal", mode)
	var page int
	require.NoError(t, db.Write.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&page))
	require.Equal(t, 16384, page, "the writer's pragmas apply to a new file")

	_, err = db.Read.ExecContext(ctx, `INSERT INTO t VALUES (1)`)
	require.Error(t, err, "the read pool is query-only")
	var n int
	require.NoError(t, db.Read.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n))
	require.Zero(t, n)
}

// TestBeginWriteRetriesABusyDatabase: while another pool holds the write
// lock past the busy timeout, BeginWrite keeps trying for as long as it is
// given, succeeds once the lock is released, and otherwise returns the
// busy error.
func TestBeginWriteRetriesABusyDatabase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		release time.Duration // when the holder commits; 0: never
		wait    time.Duration // BeginWrite's bound
		ok      bool
	}{
		{"released in time", 100 * time.Millisecond, 5 * time.Second, true},
		{"held throughout", 0, 300 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "busy.db")
			holder, err := OpenSQLite(path, time.Second)
			require.NoError(t, err)
			defer holder.Close()
			waiter, err := OpenSQLite(path, 5*time.Millisecond) // SQLite's own wait ends quickly
			require.NoError(t, err)
			defer waiter.Close()
			_, err = holder.Write.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`)
			require.NoError(t, err)

			held, err := holder.Write.BeginTx(ctx, nil)
			require.NoError(t, err)
			_, err = waiter.Write.BeginTx(ctx, nil)
			require.True(t, IsBusy(err), "SQLite alone gives up: %v", err)
			released := make(chan struct{})
			if tc.release > 0 {
				time.AfterFunc(tc.release, func() { _ = held.Commit(); close(released) })
			} else {
				defer held.Rollback() //nolint:errcheck // the test's end
			}

			tx, err := BeginWrite(ctx, waiter.Write, tc.wait)
			if !tc.ok {
				require.True(t, IsBusy(err), "busy after the wait: %v", err)
				return
			}
			require.NoError(t, err)
			<-released
			_, err = tx.ExecContext(ctx, `INSERT INTO t VALUES (1)`)
			require.NoError(t, err)
			require.NoError(t, tx.Commit())
		})
	}
	require.False(t, IsBusy(nil))
}
