package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
)

// Store is a [checkpoint.Store] in PostgreSQL. It is safe for concurrent
// use, and any number of processes may share the database.
type Store struct{ db *db }

var (
	_ checkpoint.Store      = (*Store)(nil)
	_ checkpoint.TailReader = (*Store)(nil)
)

// Open opens the checkpoint store in the database cfg names, creating its
// tables when missing: it connects to cfg.DSN (a postgres:// URL or
// key=value string, as pgx reads it), and Close closes the connections;
// or it uses cfg.Pool, and Close leaves the pool open: it is the caller's.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	d, err := openDB(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Store{db: d}, nil
}

// Close closes the store; see [checkpoint.Store.Close].
func (s *Store) Close() error { return s.db.close() }

const selectCheckpoint = `SELECT run_id, seq, format, kind, time_ns, state, events, meta FROM {checkpoints} `

// Put appends cp to its run; see [checkpoint.Store.Put]. The run's row in
// the runs table is the compare-and-swap: a new run's row is inserted only
// if absent, a later checkpoint moves the head only from cp.Seq-1, and the
// (run_id, seq) primary key backs both.
func (s *Store) Put(ctx context.Context, cp checkpoint.Checkpoint) error {
	if err := cp.Validate(); err != nil {
		return s.db.fail(ctx, "Put", "", "", err)
	}
	if err := s.db.ready(ctx, "Put", "run", cp.RunID); err != nil {
		return err
	}
	ns := cp.Time.UnixNano()
	meta := jsonParam(sqlrow.EncodeMeta(cp.Meta))
	err := s.db.inTx(ctx, func(tx pgx.Tx) error {
		var tag pgconn.CommandTag
		var err error
		if cp.Seq == 1 {
			tag, err = tx.Exec(ctx, s.db.q(`INSERT INTO {runs} (run_id, head, kind, created_ns, updated_ns, meta)
VALUES ($1, 1, $2, $3, $3, $4) ON CONFLICT (run_id) DO NOTHING`), cp.RunID, cp.Kind, ns, meta)
		} else {
			tag, err = tx.Exec(ctx, s.db.q(`UPDATE {runs} SET head = $2, kind = $3, updated_ns = $4, meta = $5
WHERE run_id = $1 AND head = $2 - 1`), cp.RunID, cp.Seq, cp.Kind, ns, meta)
		}
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return s.conflict(ctx, tx, cp)
		}
		_, err = tx.Exec(ctx, s.db.q(`INSERT INTO {checkpoints} (run_id, seq, format, kind, time_ns, state, events, meta)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`), cp.RunID, cp.Seq, sqlrow.Format, cp.Kind, ns, bytesParam(cp.State), bytesParam(cp.Events), meta)
		if isUniqueViolation(err) {
			return s.conflict(ctx, tx, cp)
		}
		return err
	})
	if err != nil {
		return s.db.fail(ctx, "Put", "run", cp.RunID, err)
	}
	return nil
}

// conflict reads the run's head for the ConflictError of a losing Put.
func (s *Store) conflict(ctx context.Context, tx pgx.Tx, cp checkpoint.Checkpoint) error {
	var head int64
	err := tx.QueryRow(ctx, s.db.q(`SELECT coalesce((SELECT head FROM {runs} WHERE run_id = $1), 0)`), cp.RunID).Scan(&head)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		head = -1 // unknown; the conflict stands
	}
	return &checkpoint.ConflictError{RunID: cp.RunID, Want: cp.Seq - 1, Have: head}
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Head returns the run's newest checkpoint; see [checkpoint.Store.Head].
func (s *Store) Head(ctx context.Context, runID string) (checkpoint.Checkpoint, error) {
	cps, err := s.query(ctx, "Head", runID, selectCheckpoint+`WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`, runID)
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
	cps, err := s.query(ctx, "Get", runID, selectCheckpoint+`WHERE run_id = $1 AND seq = $2`, runID, seq)
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
	return s.query(ctx, "List", runID, selectCheckpoint+`WHERE run_id = $1 ORDER BY seq`, runID)
}

// ListFrom returns the run's checkpoints from Seq from on, oldest first;
// see [checkpoint.TailReader].
func (s *Store) ListFrom(ctx context.Context, runID string, from int64) ([]checkpoint.Checkpoint, error) {
	if err := checkpoint.ValidateSeq(runID, from); err != nil {
		return nil, s.db.fail(ctx, "ListFrom", "", "", err)
	}
	cps, err := s.query(ctx, "ListFrom", runID, selectCheckpoint+`WHERE run_id = $1 AND seq >= $2 ORDER BY seq`, runID, from)
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
	cps, err := s.read(ctx, s.db.q(query), args...)
	if err == nil && len(cps) == 0 {
		err = &checkpoint.NotFoundError{RunID: runID}
	}
	if err != nil {
		return nil, s.db.fail(ctx, op, "run", runID, err)
	}
	return cps, nil
}

func (s *Store) read(ctx context.Context, query string, args ...any) ([]checkpoint.Checkpoint, error) {
	rows, err := s.db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var out []checkpoint.Checkpoint
	var r sqlrow.Row
	_, err = pgx.ForEachRow(rows, []any{&r.RunID, &r.Seq, &r.Format, &r.Kind, &r.TimeNS, &r.State, &r.Events, &r.Meta}, func() error {
		cp, err := r.Checkpoint()
		if err != nil {
			return err
		}
		out = append(out, cp)
		return nil
	})
	return out, err
}

// Runs lists runs; see [checkpoint.Store.Runs]. Meta is matched by the
// database (jsonb containment).
func (s *Store) Runs(ctx context.Context, f checkpoint.RunFilter) ([]checkpoint.RunInfo, error) {
	if err := f.Validate(); err != nil {
		return nil, s.db.fail(ctx, "Runs", "", "", err)
	}
	if err := s.db.ready(ctx, "Runs", "", ""); err != nil {
		return nil, err
	}
	var before, limit, meta any
	if !f.UpdatedBefore.IsZero() {
		before = sqlrow.Bound(f.UpdatedBefore)
	}
	if f.Limit > 0 {
		limit = f.Limit
	}
	if len(f.Meta) > 0 {
		meta = jsonParam(sqlrow.EncodeMeta(f.Meta))
	}
	rows, err := s.db.pool.Query(ctx, s.db.q(`SELECT run_id, head, kind, created_ns, updated_ns, meta FROM {runs}
WHERE ($1::bigint IS NULL OR updated_ns < $1) AND ($2::jsonb IS NULL OR meta @> $2)
ORDER BY updated_ns DESC, run_id LIMIT $3`), before, meta, limit)
	if err != nil {
		return nil, s.db.fail(ctx, "Runs", "", "", err)
	}
	var out []checkpoint.RunInfo
	var ri checkpoint.RunInfo
	var created, updated int64
	var rawMeta []byte
	_, err = pgx.ForEachRow(rows, []any{&ri.RunID, &ri.Head, &ri.Kind, &created, &updated, &rawMeta}, func() error {
		m, err := sqlrow.RunMeta(ri.RunID, ri.Head, rawMeta)
		if err != nil {
			return err
		}
		info := ri
		info.Meta, info.Created, info.Updated = m, sqlrow.Time(created), sqlrow.Time(updated)
		out = append(out, info)
		return nil
	})
	if err != nil {
		return nil, s.db.fail(ctx, "Runs", "", "", err)
	}
	return out, nil
}

// Prune deletes whole runs whose head is older than olderThan, in one
// statement; see [checkpoint.Store.Prune].
func (s *Store) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	if err := s.db.ready(ctx, "Prune", "", ""); err != nil {
		return 0, err
	}
	var n int
	err := s.db.pool.QueryRow(ctx, s.db.q(`
WITH gone AS (DELETE FROM {runs} WHERE updated_ns < $1 RETURNING run_id),
     cps AS (DELETE FROM {checkpoints} c USING gone WHERE c.run_id = gone.run_id)
SELECT count(*) FROM gone`), sqlrow.Bound(olderThan)).Scan(&n)
	if err != nil {
		return 0, s.db.fail(ctx, "Prune", "", "", err)
	}
	return n, nil
}

// Delete deletes a run, in one statement; see [checkpoint.Store.Delete].
func (s *Store) Delete(ctx context.Context, runID string) error {
	if err := checkpoint.ValidateID("run", runID); err != nil {
		return s.db.fail(ctx, "Delete", "", "", err)
	}
	if err := s.db.ready(ctx, "Delete", "run", runID); err != nil {
		return err
	}
	_, err := s.db.pool.Exec(ctx, s.db.q(`
WITH r AS (DELETE FROM {runs} WHERE run_id = $1)
DELETE FROM {checkpoints} WHERE run_id = $1`), runID)
	if err != nil {
		return s.db.fail(ctx, "Delete", "run", runID, err)
	}
	return nil
}

// bytesParam passes empty JSON as NULL.
func bytesParam(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// jsonParam passes JSON text for a jsonb column, or NULL when empty.
func jsonParam(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
