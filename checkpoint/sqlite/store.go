package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
)

// Store is a [checkpoint.Store] in a SQLite file. It is safe for concurrent
// use, and several processes may open the same file at once.
type Store struct{ db *db }

var (
	_ checkpoint.Store      = (*Store)(nil)
	_ checkpoint.TailReader = (*Store)(nil)
)

// Open opens the checkpoint store in the SQLite file at cfg.Path, creating
// the file, its folder and the schema when missing; an empty Path means
// [DefaultPath] (a file under the user's cache directory, or
// $LOOM_CHECKPOINT_DB). A file whose loom tables are foreign or written by
// a newer loom fails with an error wrapping [checkpoint.ErrCorrupt].
func Open(ctx context.Context, cfg Config) (*Store, error) {
	d, err := openDB(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Store{db: d}, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.db.path }

// Close closes the database; see [checkpoint.Store.Close].
func (s *Store) Close() error { return s.db.close() }

const selectCheckpoint = `SELECT run_id, seq, format, kind, time_ns, state, events, meta FROM loom_checkpoints `

// Put appends cp to its run in one IMMEDIATE transaction; see
// [checkpoint.Store.Put].
func (s *Store) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	if err := cp.Validate(); err != nil {
		return s.db.fail(ctx, "Put", "", "", err)
	}
	if err := s.db.ready(ctx, "Put", "run", cp.RunID); err != nil {
		return err
	}
	ns := cp.Time.UnixNano()
	meta := sqlrow.EncodeMeta(cp.Meta)
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		var head int64
		err := tx.QueryRowContext(ctx, `SELECT head FROM loom_runs WHERE run_id = ?`, cp.RunID).Scan(&head)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if cp.Seq != head+1 {
			return &checkpoint.ConflictError{RunID: cp.RunID, Want: cp.Seq - 1, Have: head}
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO loom_checkpoints (run_id, seq, format, kind, time_ns, state, events, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			cp.RunID, cp.Seq, sqlrow.Format, cp.Kind, ns, nullBytes(cp.State), nullBytes(cp.Events), nullText(meta)); err != nil {
			return err
		}
		if cp.Seq == 1 {
			_, err = tx.ExecContext(ctx,
				`INSERT INTO loom_runs (run_id, head, kind, created_ns, updated_ns, meta) VALUES (?, 1, ?, ?, ?, ?)`,
				cp.RunID, cp.Kind, ns, ns, nullText(meta))
		} else {
			_, err = tx.ExecContext(ctx,
				`UPDATE loom_runs SET head = ?, kind = ?, updated_ns = ?, meta = ? WHERE run_id = ?`,
				cp.Seq, cp.Kind, ns, nullText(meta), cp.RunID)
		}
		return err
	})
	if err != nil {
		return s.db.fail(ctx, "Put", "run", cp.RunID, err)
	}
	return nil
}

// Head returns the run's newest checkpoint; see [checkpoint.Store.Head].
func (s *Store) Head(ctx context.Context, runID string) (checkpoint.Checkpoint, error) {
	cps, err := s.query(ctx, "Head", runID, selectCheckpoint+`WHERE run_id = ? ORDER BY seq DESC LIMIT 1`, runID)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	return cps[0], nil
}

// Get returns one checkpoint; see [checkpoint.Store.Get].
func (s *Store) Get(ctx context.Context, runID string, seq int64) (checkpoint.Checkpoint, error) {
	if err := checkpoint.ValidateSeq(runID, seq); err != nil {
		return checkpoint.Checkpoint{}, s.db.fail(ctx, "Get", "", "", err)
	}
	cps, err := s.query(ctx, "Get", runID, selectCheckpoint+`WHERE run_id = ? AND seq = ?`, runID, seq)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return checkpoint.Checkpoint{}, s.db.fail(ctx, "Get", "", "", &checkpoint.NotFoundError{RunID: runID, Seq: seq})
	}
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	return cps[0], nil
}

// List returns the run's checkpoints, oldest first; see
// [checkpoint.Store.List].
func (s *Store) List(ctx context.Context, runID string) ([]checkpoint.Checkpoint, error) {
	return s.query(ctx, "List", runID, selectCheckpoint+`WHERE run_id = ? ORDER BY seq`, runID)
}

// ListFrom returns the run's checkpoints from Seq from on, oldest first;
// see [checkpoint.TailReader].
func (s *Store) ListFrom(ctx context.Context, runID string, from int64) ([]checkpoint.Checkpoint, error) {
	if err := checkpoint.ValidateSeq(runID, from); err != nil {
		return nil, s.db.fail(ctx, "ListFrom", "", "", err)
	}
	cps, err := s.query(ctx, "ListFrom", runID, selectCheckpoint+`WHERE run_id = ? AND seq >= ? ORDER BY seq`, runID, from)
	if errors.Is(err, checkpoint.ErrNotFound) && from > 1 {
		return nil, s.db.fail(ctx, "ListFrom", "", "", &checkpoint.NotFoundError{RunID: runID, Seq: from})
	}
	return cps, err
}

// query reads checkpoint rows of one run; no rows is a NotFoundError.
func (s *Store) query(ctx context.Context, op, runID, query string, args ...any) ([]checkpoint.Checkpoint, error) {
	if err := checkpoint.ValidateID("run", runID); err != nil {
		return nil, s.db.fail(ctx, op, "", "", err)
	}
	if err := s.db.ready(ctx, op, "run", runID); err != nil {
		return nil, err
	}
	cps, err := readCheckpoints(ctx, s.db.read, query, args...)
	if err == nil && len(cps) == 0 {
		err = &checkpoint.NotFoundError{RunID: runID}
	}
	if err != nil {
		return nil, s.db.fail(ctx, op, "run", runID, err)
	}
	return cps, nil
}

func readCheckpoints(ctx context.Context, q *sql.DB, query string, args ...any) ([]checkpoint.Checkpoint, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []checkpoint.Checkpoint
	for rows.Next() {
		var r sqlrow.Row
		var meta sql.NullString
		if err := rows.Scan(&r.RunID, &r.Seq, &r.Format, &r.Kind, &r.TimeNS, &r.State, &r.Events, &meta); err != nil {
			return nil, err
		}
		r.Meta = []byte(meta.String)
		cp, err := r.Checkpoint()
		if err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	return out, rows.Err()
}

// Runs lists runs; see [checkpoint.Store.Runs]. Meta is matched in Go
// while reading the runs newest first, so a Meta filter reads the runs
// updated since the last match.
func (s *Store) Runs(ctx context.Context, f checkpoint.RunFilter) ([]checkpoint.RunInfo, error) {
	if err := f.Validate(); err != nil {
		return nil, s.db.fail(ctx, "Runs", "", "", err)
	}
	if err := s.db.ready(ctx, "Runs", "", ""); err != nil {
		return nil, err
	}
	out, err := s.runs(ctx, f)
	if err != nil {
		return nil, s.db.fail(ctx, "Runs", "", "", err)
	}
	return out, nil
}

func (s *Store) runs(ctx context.Context, f checkpoint.RunFilter) ([]checkpoint.RunInfo, error) {
	query := `SELECT run_id, head, kind, created_ns, updated_ns, meta FROM loom_runs `
	var args []any
	if !f.UpdatedBefore.IsZero() {
		query += `WHERE updated_ns < ? `
		args = append(args, sqlrow.Bound(f.UpdatedBefore))
	}
	query += `ORDER BY updated_ns DESC, run_id`
	if f.Limit > 0 && len(f.Meta) == 0 {
		query += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []checkpoint.RunInfo
	for (f.Limit == 0 || len(out) < f.Limit) && rows.Next() {
		var ri checkpoint.RunInfo
		var created, updated int64
		var meta sql.NullString
		if err := rows.Scan(&ri.RunID, &ri.Head, &ri.Kind, &created, &updated, &meta); err != nil {
			return nil, err
		}
		if ri.Meta, err = sqlrow.RunMeta(ri.RunID, ri.Head, []byte(meta.String)); err != nil {
			return nil, err
		}
		ri.Created, ri.Updated = sqlrow.Time(created), sqlrow.Time(updated)
		if f.Match(ri.Updated, ri.Meta) {
			out = append(out, ri)
		}
	}
	return out, rows.Err()
}

// Prune deletes whole runs whose head is older than olderThan; see
// [checkpoint.Store.Prune].
func (s *Store) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	if err := s.db.ready(ctx, "Prune", "", ""); err != nil {
		return 0, err
	}
	bound := sqlrow.Bound(olderThan)
	var n int64
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`DELETE FROM loom_checkpoints WHERE run_id IN (SELECT run_id FROM loom_runs WHERE updated_ns < ?)`, bound); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM loom_runs WHERE updated_ns < ?`, bound)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, s.db.fail(ctx, "Prune", "", "", err)
	}
	return int(n), nil
}

// Delete deletes a run; see [checkpoint.Store.Delete].
func (s *Store) Delete(ctx context.Context, runID string) error {
	if err := checkpoint.ValidateID("run", runID); err != nil {
		return s.db.fail(ctx, "Delete", "", "", err)
	}
	if err := s.db.ready(ctx, "Delete", "run", runID); err != nil {
		return err
	}
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM loom_checkpoints WHERE run_id = ?`, runID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM loom_runs WHERE run_id = ?`, runID)
		return err
	})
	if err != nil {
		return s.db.fail(ctx, "Delete", "run", runID, err)
	}
	return nil
}

// nullBytes stores empty JSON as NULL.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// nullText stores empty meta as NULL and meta as TEXT.
func nullText(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
