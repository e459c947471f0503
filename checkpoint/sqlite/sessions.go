package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/internal/sqlrow"
)

// Sessions is a [checkpoint.SessionStore] in a SQLite file. It is safe for
// concurrent use, and several processes may open the same file at once. It
// may share a file with a [Store].
type Sessions struct{ db *db }

var _ checkpoint.SessionStore = (*Sessions)(nil)

// OpenSessions opens the session store in the SQLite file at cfg.Path,
// like [Open]; an empty Path means [DefaultPath].
func OpenSessions(ctx context.Context, cfg Config) (*Sessions, error) {
	d, err := openDB(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Sessions{db: d}, nil
}

// Path returns the database file's path.
func (s *Sessions) Path() string { return s.db.path }

// Close closes the database; see [checkpoint.SessionStore.Close].
func (s *Sessions) Close() error { return s.db.close() }

// Append adds turns in one IMMEDIATE transaction; see
// [checkpoint.SessionStore.Append].
func (s *Sessions) Append(ctx context.Context, sessionID string, after int, turns ...json.RawMessage) error {
	if err := checkpoint.ValidateAppend(sessionID, after, turns); err != nil {
		return s.db.fail(ctx, "Append", "", "", err)
	}
	if err := s.db.ready(ctx, "Append", "session", sessionID); err != nil {
		return err
	}
	now := checkpoint.StoredTime(s.db.cfg.Clock()).UnixNano()
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		var have int64
		err := tx.QueryRowContext(ctx, `SELECT turns FROM loom_sessions WHERE session_id = ?`, sessionID).Scan(&have)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if have != int64(after) {
			return &checkpoint.ConflictError{SessionID: sessionID, Want: int64(after), Have: have}
		}
		for i, t := range turns {
			if _, err := tx.ExecContext(ctx, `INSERT INTO loom_session_turns (session_id, turn, format, body) VALUES (?, ?, ?, ?)`,
				sessionID, after+i+1, sqlrow.Format, []byte(t)); err != nil {
				return err
			}
		}
		total := after + len(turns)
		if after == 0 {
			_, err = tx.ExecContext(ctx, `INSERT INTO loom_sessions (session_id, turns, created_ns, updated_ns) VALUES (?, ?, ?, ?)`,
				sessionID, total, now, now)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE loom_sessions SET turns = ?, updated_ns = ? WHERE session_id = ?`,
				total, now, sessionID)
		}
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
	out, err := s.load(ctx, sessionID)
	if err != nil {
		return nil, s.db.fail(ctx, "Load", "session", sessionID, err)
	}
	return out, nil
}

func (s *Sessions) load(ctx context.Context, sessionID string) ([]json.RawMessage, error) {
	rows, err := s.db.read.QueryContext(ctx, `SELECT turn, format, body FROM loom_session_turns WHERE session_id = ? ORDER BY turn`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var turn, format int64
		var body []byte
		if err := rows.Scan(&turn, &format, &body); err != nil {
			return nil, err
		}
		t, err := sqlrow.Turn(sessionID, turn, format, body)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Sessions lists sessions; see [checkpoint.SessionStore.Sessions].
func (s *Sessions) Sessions(ctx context.Context, limit int) ([]checkpoint.SessionInfo, error) {
	if err := checkpoint.ValidateLimit(limit); err != nil {
		return nil, s.db.fail(ctx, "Sessions", "", "", err)
	}
	if err := s.db.ready(ctx, "Sessions", "", ""); err != nil {
		return nil, err
	}
	out, err := s.list(ctx, limit)
	if err != nil {
		return nil, s.db.fail(ctx, "Sessions", "", "", err)
	}
	return out, nil
}

func (s *Sessions) list(ctx context.Context, limit int) ([]checkpoint.SessionInfo, error) {
	query := `SELECT session_id, turns, created_ns, updated_ns FROM loom_sessions ORDER BY updated_ns DESC, session_id`
	if limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, limit)
	}
	rows, err := s.db.read.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []checkpoint.SessionInfo
	for rows.Next() {
		var si checkpoint.SessionInfo
		var created, updated int64
		if err := rows.Scan(&si.ID, &si.Turns, &created, &updated); err != nil {
			return nil, err
		}
		si.Created, si.Updated = sqlrow.Time(created), sqlrow.Time(updated)
		out = append(out, si)
	}
	return out, rows.Err()
}

// Delete deletes a session; see [checkpoint.SessionStore.Delete].
func (s *Sessions) Delete(ctx context.Context, sessionID string) error {
	if err := checkpoint.ValidateID("session", sessionID); err != nil {
		return s.db.fail(ctx, "Delete", "", "", err)
	}
	if err := s.db.ready(ctx, "Delete", "session", sessionID); err != nil {
		return err
	}
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM loom_session_turns WHERE session_id = ?`, sessionID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM loom_sessions WHERE session_id = ?`, sessionID)
		return err
	})
	if err != nil {
		return s.db.fail(ctx, "Delete", "session", sessionID, err)
	}
	return nil
}
