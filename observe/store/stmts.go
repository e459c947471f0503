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
	nextSeq, countSpans, pruneState, insertPart, insertParts *sql.Stmt
	upsert                                                   [len(upsertSizes)]*sql.Stmt // upsert[k] writes upsertSizes[k] summaries
}

func prepareStmts(ctx context.Context, db *sql.DB) (*stmts, error) {
	st := &stmts{}
	type stmt struct {
		dst *(*sql.Stmt)
		sql string
	}
	all := []stmt{
		{&st.nextSeq, `UPDATE counters SET value = value + 1 WHERE name = 'seq' RETURNING value`},
		{&st.countSpans, `UPDATE counters SET value = value + ? WHERE name = 'spans'`},
		{&st.pruneState, `SELECT (SELECT value FROM counters WHERE name = 'traces'),
			(SELECT value FROM counters WHERE name = 'spans'),
			(SELECT start_ns FROM traces ORDER BY start_ns, trace_id LIMIT 1)`},
		{&st.insertPart, insertPartSQL},
		{&st.insertParts, insertPartsSQL},
	}
	for k, n := range upsertSizes {
		all = append(all, stmt{&st.upsert[k], upsertSQL(n)})
	}
	for _, p := range all {
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
	for _, s := range append([]*sql.Stmt{st.nextSeq, st.countSpans, st.pruneState, st.insertPart, st.insertParts}, st.upsert[:]...) {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}
