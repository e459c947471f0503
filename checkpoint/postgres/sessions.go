package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
)

// Sessions is a [checkpoint.SessionStore] in PostgreSQL. It is safe for
// concurrent use, and any number of processes may share the database. It
// may share a database and schema with a [Store].
type Sessions struct{ db *db }

var _ checkpoint.SessionStore = (*Sessions)(nil)

// OpenSessions opens the session store in the database cfg names, like
// [Open]: Close closes the connections it made from cfg.DSN, and leaves
// cfg.Pool open.
func OpenSessions(ctx context.Context, cfg Config) (*Sessions, error) {
	d, err := openDB(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Sessions{db: d}, nil
}

// Close closes the store; see [checkpoint.SessionStore.Close].
func (s *Sessions) Close() error { return s.db.close() }

// Append adds turns in one transaction; see
// [checkpoint.SessionStore.Append]. The session's row is the
// compare-and-swap: a new session's row is inserted only if absent, and
// the turn count moves only from after.
func (s *Sessions) Append(ctx context.Context, sessionID string, after int, turns ...json.RawMessage) error {
	if err := checkpoint.ValidateAppend(sessionID, after, turns); err != nil {
		return s.db.fail(ctx, "Append", "", "", err)
	}
	if err := s.db.ready(ctx, "Append", "session", sessionID); err != nil {
		return err
	}
	now := checkpoint.StoredTime(s.db.cfg.Clock()).UnixNano()
	bodies := make([][]byte, len(turns))
	for i, t := range turns {
		bodies[i] = t
	}
	total := after + len(turns)
	err := s.db.inTx(ctx, func(tx pgx.Tx) error {
		var tag pgconn.CommandTag
		var err error
		if after == 0 {
			tag, err = tx.Exec(ctx, s.db.q(`INSERT INTO {sessions} (session_id, turns, created_ns, updated_ns)
VALUES ($1, $2, $3, $3) ON CONFLICT (session_id) DO NOTHING`), sessionID, total, now)
		} else {
			tag, err = tx.Exec(ctx, s.db.q(`UPDATE {sessions} SET turns = $2, updated_ns = $3 WHERE session_id = $1 AND turns = $4`),
				sessionID, total, now, after)
		}
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var have int64
			if err := tx.QueryRow(ctx, s.db.q(`SELECT coalesce((SELECT turns FROM {sessions} WHERE session_id = $1), 0)`), sessionID).Scan(&have); err != nil {
				have = -1 // unknown; the conflict stands
			}
			return &checkpoint.ConflictError{SessionID: sessionID, Want: int64(after), Have: have}
		}
		_, err = tx.Exec(ctx, s.db.q(`INSERT INTO {session_turns} (session_id, turn, format, body)
SELECT $1, $2 + t.i, $3, t.b FROM unnest($4::bytea[]) WITH ORDINALITY AS t(b, i)`), sessionID, after, sqlrow.Format, bodies)
		return err
	})
	if err != nil {
		return s.db.fail(ctx, "Append", "session", sessionID, err)
	}
	return nil
}

// Load returns a session's turns; see [checkpoint.SessionStore.Load].
func (s *Sessions) Load(ctx context.Context, sessionID string) ([]json.RawMessage, error) {
	if err := checkpoint.ValidateID("session", sessionID); err != nil {
		return nil, s.db.fail(ctx, "Load", "", "", err)
	}
	if err := s.db.ready(ctx, "Load", "session", sessionID); err != nil {
		return nil, err
	}
	rows, err := s.db.pool.Query(ctx, s.db.q(`SELECT turn, format, body FROM {session_turns} WHERE session_id = $1 ORDER BY turn`), sessionID)
	if err != nil {
		return nil, s.db.fail(ctx, "Load", "session", sessionID, err)
	}
	var out []json.RawMessage
	var turn, format int64
	var body []byte
	_, err = pgx.ForEachRow(rows, []any{&turn, &format, &body}, func() error {
		t, err := sqlrow.Turn(sessionID, turn, format, body)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, s.db.fail(ctx, "Load", "session", sessionID, err)
	}
	return out, nil
}

// Sessions lists sessions; see [checkpoint.SessionStore.Sessions].
func (s *Sessions) Sessions(ctx context.Context, limit int) ([]checkpoint.SessionInfo, error) {
	if err := checkpoint.ValidateLimit(limit); err != nil {
		return nil, s.db.fail(ctx, "Sessions", "", "", err)
	}
	if err := s.db.ready(ctx, "Sessions", "", ""); err != nil {
		return nil, err
	}
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := s.db.pool.Query(ctx, s.db.q(`SELECT session_id, turns, created_ns, updated_ns FROM {sessions}
ORDER BY updated_ns DESC, session_id LIMIT $1`), lim)
	if err != nil {
		return nil, s.db.fail(ctx, "Sessions", "", "", err)
	}
	var out []checkpoint.SessionInfo
	var si checkpoint.SessionInfo
	var created, updated int64
	_, err = pgx.ForEachRow(rows, []any{&si.ID, &si.Turns, &created, &updated}, func() error {
		si.Created, si.Updated = sqlrow.Time(created), sqlrow.Time(updated)
		out = append(out, si)
		return nil
	})
	if err != nil {
		return nil, s.db.fail(ctx, "Sessions", "", "", err)
	}
	return out, nil
}

// Delete deletes a session, in one statement; see
// [checkpoint.SessionStore.Delete].
func (s *Sessions) Delete(ctx context.Context, sessionID string) error {
	if err := checkpoint.ValidateID("session", sessionID); err != nil {
		return s.db.fail(ctx, "Delete", "", "", err)
	}
	if err := s.db.ready(ctx, "Delete", "session", sessionID); err != nil {
		return err
	}
	_, err := s.db.pool.Exec(ctx, s.db.q(`
WITH d AS (DELETE FROM {sessions} WHERE session_id = $1)
DELETE FROM {session_turns} WHERE session_id = $1`), sessionID)
	if err != nil {
		return s.db.fail(ctx, "Delete", "session", sessionID, err)
	}
	return nil
}
