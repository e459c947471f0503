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
