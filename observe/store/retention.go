package store

import (
	"context"
	"database/sql"
	"fmt"
)

// pruneScan bounds how many of the oldest traces one write examines.
const pruneScan = 64

// prune deletes, oldest first, the traces that break a retention bound:
// older than maxAge, beyond maxTraces, or while more than maxSpans spans are
// stored. It deletes at most cfg.pruneBatch span rows per call; a trace whose
// spans are not all gone keeps its summary row until a later write finishes
// it. It runs inside the write transaction tx.
func (s *Store) prune(ctx context.Context, tx *sql.Tx) error {
	c := &s.cfg
	if c.maxAge <= 0 && c.maxTraces <= 0 && c.maxSpans <= 0 {
		return nil
	}
	var cutoff int64 = -1 << 63
	if c.maxAge > 0 {
		cutoff = c.now().Add(-c.maxAge).UnixNano()
	}
	// One statement reads the counts and the oldest start: the fast path
	// of a write that prunes nothing.
	var traces, spans int64
	var oldest sql.NullInt64
	state, err := s.stmts.in(ctx, tx, stmtPruneState)
	if err != nil {
		return err
	}
	if err := state.QueryRowContext(ctx).Scan(&traces, &spans, &oldest); err != nil {
		return fmt.Errorf("store: read counts for retention: %w", err)
	}
	due := func(start int64) bool {
		return start < cutoff ||
			(c.maxTraces > 0 && traces > int64(c.maxTraces)) ||
			(c.maxSpans > 0 && spans > int64(c.maxSpans))
	}
	if !oldest.Valid || !due(oldest.Int64) {
		return nil
	}
	victims, err := oldestTraces(ctx, tx, pruneScan)
	if err != nil {
		return err
	}
	budget := int64(c.pruneBatch)
	var deleted int64
	for _, v := range victims {
		if budget <= 0 || !due(v.start) {
			break
		}
		np, err := deleteParts(ctx, tx, v.id)
		if err != nil {
			return err
		}
		budget -= np
		deleted += np
		spans -= np
		limit := max(budget, 1)
		res, err := tx.ExecContext(ctx,
			`DELETE FROM spans WHERE rowid IN (SELECT rowid FROM spans WHERE trace_id = ? LIMIT ?)`, v.id, limit)
		if err != nil {
			return fmt.Errorf("store: prune spans of trace %s: %w", v.id, err)
		}
		n, _ := res.RowsAffected()
		budget -= n
		deleted += n
		spans -= n
		if n == limit {
			// The budget ran out exactly: keep the summary while spans remain.
			var more int
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM spans WHERE trace_id = ?)`, v.id).Scan(&more); err != nil {
				return fmt.Errorf("store: check pruned trace %s: %w", v.id, err)
			}
			if more == 1 {
				break
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM traces WHERE trace_id = ?`, v.id); err != nil {
			return fmt.Errorf("store: prune trace %s: %w", v.id, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM failed_spans WHERE trace_id = ?`, v.id); err != nil {
			return fmt.Errorf("store: prune trace %s: %w", v.id, err)
		}
		traces--
	}
	if deleted > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE counters SET value = max(value - ?, 0) WHERE name = 'spans'`, deleted); err != nil {
			return fmt.Errorf("store: count pruned spans: %w", err)
		}
	}
	return nil
}

// deleteParts deletes the parts of trace id and returns how many spans
// they held.
func deleteParts(ctx context.Context, tx *sql.Tx, id string) (int64, error) {
	var n int64
	err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(span_count), 0) FROM parts WHERE trace_id = ?`, id).Scan(&n)
	if err == nil && n > 0 {
		_, err = tx.ExecContext(ctx, `DELETE FROM parts WHERE trace_id = ?`, id)
	}
	if err != nil {
		return 0, fmt.Errorf("store: prune parts of trace %s: %w", id, err)
	}
	return n, nil
}

type traceRef struct {
	id    string
	start int64
}

func oldestTraces(ctx context.Context, tx *sql.Tx, n int) ([]traceRef, error) {
	rows, err := tx.QueryContext(ctx, `SELECT trace_id, start_ns FROM traces ORDER BY start_ns, trace_id LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("store: list oldest traces: %w", err)
	}
	defer rows.Close()
	var out []traceRef
	for rows.Next() {
		var t traceRef
		if err := rows.Scan(&t.id, &t.start); err != nil {
			return nil, fmt.Errorf("store: list oldest traces: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
