package store

import (
	"context"
	"database/sql"
	"fmt"
)

// inserter inserts span rows within a write transaction and gathers the
// summary deltas of the rows it really inserted.
type inserter struct {
	tx        *sql.Tx
	cfg       *config
	stmts     *stmts
	one, many *sql.Stmt
	part      *sql.Stmt // the store's, within the transaction
	parts     *sql.Stmt // the store's multi-row part insert, within the transaction
	args      []any
	texts     *textCache // the store's

	textsCounted        bool  // textRows and textBytes were read
	textRows, textBytes int64 // the texts table's rows and bytes, in this transaction

	deltas   map[string]*delta
	order    []string // trace ids in first-seen order
	inserted int64
}

// insert writes rows: full chunks of insertRows with one statement each,
// the rest one by one. Rows stored before (a retried export) are skipped
// and not counted.
func (in *inserter) insert(ctx context.Context, rows []row) error {
	for len(rows) >= insertRows {
		if err := in.insertChunk(ctx, rows[:insertRows]); err != nil {
			return err
		}
		rows = rows[insertRows:]
	}
	for i := range rows {
		if err := in.insertOne(ctx, &rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// insertChunk inserts len(rows) == insertRows rows in one statement inside
// a savepoint. When some of them were stored before, it rolls the chunk
// back and inserts it row by row, so only new rows count in the summary.
func (in *inserter) insertChunk(ctx context.Context, rows []row) error {
	if in.many == nil {
		st, err := in.tx.PrepareContext(ctx, insertSpansSQL)
		if err != nil {
			return fmt.Errorf("store: prepare span insert: %w", err)
		}
		in.many = st
	}
	in.args = in.args[:0]
	for i := range rows {
		in.args = appendRowArgs(in.args, &rows[i])
	}
	all, err := in.allNew(ctx, in.many, len(rows))
	if err != nil {
		return fmt.Errorf("store: insert %d spans of trace %s: %w", len(rows), rows[0].traceID, err)
	}
	for i := range rows {
		if !all {
			// Some were stored before: redo the chunk row by row.
			if err := in.insertOne(ctx, &rows[i]); err != nil {
				return err
			}
			continue
		}
		in.count(&rows[i])
	}
	return nil
}

// allNew runs st with in.args inside a savepoint and reports whether it
// inserted all n rows; when not, it rolls them back, so that the caller
// can insert them one by one and count only the new ones.
func (in *inserter) allNew(ctx context.Context, st *sql.Stmt, n int) (bool, error) {
	if _, err := in.tx.ExecContext(ctx, "SAVEPOINT batch"); err != nil {
		return false, fmt.Errorf("savepoint: %w", err)
	}
	res, err := st.ExecContext(ctx, in.args...)
	if err != nil {
		return false, err
	}
	end := []string{"RELEASE batch"}
	affected, _ := res.RowsAffected()
	if affected != int64(n) {
		end = []string{"ROLLBACK TO batch", "RELEASE batch"}
	}
	for _, q := range end {
		if _, err := in.tx.ExecContext(ctx, q); err != nil {
			return false, fmt.Errorf("%s: %w", q, err)
		}
	}
	return affected == int64(n), nil
}

func (in *inserter) insertOne(ctx context.Context, r *row) error {
	if in.one == nil {
		st, err := in.tx.PrepareContext(ctx, insertSpanSQL)
		if err != nil {
			return fmt.Errorf("store: prepare span insert: %w", err)
		}
		in.one = st
	}
	in.args = appendRowArgs(in.args[:0], r)
	res, err := in.one.ExecContext(ctx, in.args...)
	if err != nil {
		return fmt.Errorf("store: insert span %s of trace %s: %w", r.spanID, r.traceID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // stored before: a retried export
	}
	in.count(r)
	return nil
}

// count adds an inserted row to its trace's summary delta.
func (in *inserter) count(r *row) {
	in.inserted++
	in.deltaOf(r.traceID).add(r, in.cfg)
}

// deltaOf returns the summary delta of a trace, made on first use.
func (in *inserter) deltaOf(traceID string) *delta {
	d := in.deltas[traceID]
	if d == nil {
		d = &delta{traceID: traceID}
		in.deltas[traceID] = d
		in.order = append(in.order, traceID)
	}
	return d
}

func (in *inserter) close() {
	for _, st := range []*sql.Stmt{in.one, in.many} {
		if st != nil {
			_ = st.Close()
		}
	}
}

// appendRowArgs appends the insert statement's arguments for r.
func appendRowArgs(args []any, r *row) []any {
	return append(args, r.traceID, r.spanID, r.parentID, r.name, r.kind, r.startNS, r.endNS,
		r.statusCode, r.statusMessage, r.attrs, r.events, r.scope)
}
