package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// stmts are the statements every write runs, prepared once on the write
// connection; a transaction uses them through tx.StmtContext, which
// reuses the connection's prepared statement.
type stmts struct {
	nextSeq, countSpans, pruneState, upsertTrace, upsertTraces, insertPart *sql.Stmt
}

func prepareStmts(ctx context.Context, db *sql.DB) (*stmts, error) {
	st := &stmts{}
	for _, p := range []struct {
		dst *(*sql.Stmt)
		sql string
	}{
		{&st.nextSeq, `UPDATE counters SET value = value + 1 WHERE name = 'seq' RETURNING value`},
		{&st.countSpans, `UPDATE counters SET value = value + ? WHERE name = 'spans'`},
		{&st.pruneState, `SELECT (SELECT value FROM counters WHERE name = 'traces'),
			(SELECT value FROM counters WHERE name = 'spans'),
			(SELECT start_ns FROM traces ORDER BY start_ns, trace_id LIMIT 1)`},
		{&st.upsertTrace, upsertTraceSQL},
		{&st.upsertTraces, upsertTracesSQL},
		{&st.insertPart, insertPartSQL},
	} {
		s, err := db.PrepareContext(ctx, p.sql)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("store: prepare statement: %w", err), st.close())
		}
		*p.dst = s
	}
	return st, nil
}

func (st *stmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{st.nextSeq, st.countSpans, st.pruneState, st.upsertTrace, st.upsertTraces, st.insertPart} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}
