package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// stmtID names one of the statements writes run.
type stmtID int

const (
	stmtNextSeq stmtID = iota
	stmtCountSpans
	stmtPruneState
	stmtInsertPart
	stmtInsertParts
	stmtUpsert // stmtUpsert+k writes upsertSizes[k] summaries
	numStmts   = stmtUpsert + stmtID(len(upsertSizes))
)

// stmts are the statements writes run, prepared on the write connection
// on demand: a statement is prepared for the store (and reused by every
// later write through tx.StmtContext) before the first write after one
// that needed it. The write that first needs it prepares it within its
// own transaction. So a program that writes once, as a one-shot command
// does, prepares only what that write runs, and once; the largest
// statements (a 64-row upsert has about 2,000 parameters) are prepared
// only by stores that write that many traces at once.
type stmts struct {
	db *sql.DB

	mu       sync.Mutex // guards prepared and wanted
	prepared [numStmts]*sql.Stmt
	wanted   [numStmts]bool
}

func newStmts(db *sql.DB) *stmts { return &stmts{db: db} }

// stmtSQL is the text of statement id.
func stmtSQL(id stmtID) string {
	switch id {
	case stmtNextSeq:
		return `UPDATE counters SET value = value + 1 WHERE name = 'seq' RETURNING value`
	case stmtCountSpans:
		return `UPDATE counters SET value = value + ? WHERE name = 'spans'`
	case stmtPruneState:
		return `SELECT (SELECT value FROM counters WHERE name = 'traces'),
			(SELECT value FROM counters WHERE name = 'spans'),
			(SELECT start_ns FROM traces ORDER BY start_ns, trace_id LIMIT 1)`
	case stmtInsertPart:
		return insertPartSQL
	case stmtInsertParts:
		return insertPartsSQL
	default:
		return upsertSQL(upsertSizes[id-stmtUpsert])
	}
}

// prepareWanted prepares, outside any transaction, the statements earlier
// writes needed and found unprepared.
func (st *stmts) prepareWanted(ctx context.Context) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for id, want := range st.wanted {
		if !want || st.prepared[id] != nil {
			continue
		}
		s, err := st.db.PrepareContext(ctx, stmtSQL(stmtID(id)))
		if err != nil {
			return fmt.Errorf("store: prepare statement: %w", err)
		}
		st.prepared[id] = s
		st.wanted[id] = false
	}
	return nil
}

// in returns statement id within tx: the store's prepared statement, or,
// before it is prepared, one prepared within tx (closed when tx ends),
// and notes that the store should prepare it.
func (st *stmts) in(ctx context.Context, tx *sql.Tx, id stmtID) (*sql.Stmt, error) {
	st.mu.Lock()
	p := st.prepared[id]
	if p == nil {
		st.wanted[id] = true
	}
	st.mu.Unlock()
	if p != nil {
		return tx.StmtContext(ctx, p), nil
	}
	s, err := tx.PrepareContext(ctx, stmtSQL(id))
	if err != nil {
		return nil, fmt.Errorf("store: prepare statement: %w", err)
	}
	return s, nil
}

func (st *stmts) close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var errs []error
	for i, s := range st.prepared {
		if s != nil {
			errs = append(errs, s.Close())
			st.prepared[i] = nil
		}
	}
	return errors.Join(errs...)
}
