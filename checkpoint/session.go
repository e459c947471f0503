package checkpoint

import (
	"context"
	"encoding/json"
	"time"
)

// SessionStore keeps a conversation's turns, each an opaque JSON value, in
// order. Implementations are safe for concurrent use; the SQLite and
// PostgreSQL stores also by many processes sharing one database.
type SessionStore interface {
	// Append adds turns after the first `after` turns. When the session
	// holds a different number of turns it returns an error wrapping
	// [ErrConflict] (a [*ConflictError]) and writes nothing. A new session
	// has 0 turns. Each turn must be non-empty valid JSON, and at least one
	// turn is required.
	Append(ctx context.Context, sessionID string, after int, turns ...json.RawMessage) error
	// Load returns the session's turns in order. An unknown session gives
	// no turns and no error.
	Load(ctx context.Context, sessionID string) ([]json.RawMessage, error)
	// Sessions lists sessions, the most recently updated first (ties by
	// id). limit 0 means no limit; negative is an error wrapping
	// [ErrInvalid].
	Sessions(ctx context.Context, limit int) ([]SessionInfo, error)
	// Delete deletes the session and its turns. Deleting an unknown session
	// is not an error.
	Delete(ctx context.Context, sessionID string) error
	// Close releases the store. Every later call fails with [ErrClosed];
	// closing twice is not an error.
	Close() error
}

// SessionInfo summarises one session. Its times come from the store's
// clock, taken when turns were appended.
type SessionInfo struct {
	ID      string
	Turns   int
	Created time.Time
	Updated time.Time
}
