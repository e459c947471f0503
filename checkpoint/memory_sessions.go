package checkpoint

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemorySessions is a [SessionStore] that keeps sessions in the process's
// memory; they are lost when the process exits. It copies turns in and
// out. Create it with [NewMemorySessions].
type MemorySessions struct {
	now func() time.Time

	mu       sync.RWMutex
	closed   bool
	sessions map[string]*memSession
}

type memSession struct {
	turns            []json.RawMessage
	created, updated time.Time
}

// MemorySessionsConfig configures [NewMemorySessions]; the zero value is
// the default.
type MemorySessionsConfig struct {
	// Clock stamps sessions' Created and Updated times; nil means
	// time.Now.
	Clock func() time.Time
}

// NewMemorySessions returns an empty in-memory session store.
func NewMemorySessions(cfg MemorySessionsConfig) *MemorySessions {
	m := &MemorySessions{now: cfg.Clock, sessions: map[string]*memSession{}}
	if m.now == nil {
		m.now = time.Now
	}
	return m
}

var _ SessionStore = (*MemorySessions)(nil)

// Append adds turns to a session; see [SessionStore.Append].
func (m *MemorySessions) Append(ctx context.Context, sessionID string, after int, turns ...json.RawMessage) error {
	if err := ValidateAppend(sessionID, after, turns); err != nil {
		return memErr(fmt.Errorf("Append: %w", err))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := memReady(ctx, m.closed, "Append", "session", sessionID); err != nil {
		return err
	}
	s := m.sessions[sessionID]
	have := 0
	if s != nil {
		have = len(s.turns)
	}
	if have != after {
		return memErr(&ConflictError{SessionID: sessionID, Want: int64(after), Have: int64(have)})
	}
	now := StoredTime(m.now())
	if s == nil {
		s = &memSession{created: now}
		m.sessions[sessionID] = s
	}
	for _, t := range turns {
		s.turns = append(s.turns, slices.Clone(t))
	}
	s.updated = now
	return nil
}

// Load returns a session's turns; see [SessionStore.Load].
func (m *MemorySessions) Load(ctx context.Context, sessionID string) ([]json.RawMessage, error) {
	if err := ValidateID("session", sessionID); err != nil {
		return nil, memErr(fmt.Errorf("Load: %w", err))
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := memReady(ctx, m.closed, "Load", "session", sessionID); err != nil {
		return nil, err
	}
	s := m.sessions[sessionID]
	if s == nil {
		return nil, nil
	}
	out := make([]json.RawMessage, len(s.turns))
	for i, t := range s.turns {
		out[i] = slices.Clone(t)
	}
	return out, nil
}

// Sessions lists sessions; see [SessionStore.Sessions].
func (m *MemorySessions) Sessions(ctx context.Context, limit int) ([]SessionInfo, error) {
	if err := ValidateLimit(limit); err != nil {
		return nil, memErr(fmt.Errorf("Sessions: %w", err))
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := memReady(ctx, m.closed, "Sessions", "", ""); err != nil {
		return nil, err
	}
	out := make([]SessionInfo, 0, len(m.sessions))
	for id, s := range m.sessions {
		out = append(out, SessionInfo{ID: id, Turns: len(s.turns), Created: s.created, Updated: s.updated})
	}
	slices.SortFunc(out, func(a, b SessionInfo) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Delete deletes a session; see [SessionStore.Delete].
func (m *MemorySessions) Delete(ctx context.Context, sessionID string) error {
	if err := ValidateID("session", sessionID); err != nil {
		return memErr(fmt.Errorf("Delete: %w", err))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := memReady(ctx, m.closed, "Delete", "session", sessionID); err != nil {
		return err
	}
	delete(m.sessions, sessionID)
	return nil
}

// Close drops the store's data; later calls fail with [ErrClosed].
func (m *MemorySessions) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed, m.sessions = true, nil
	return nil
}
