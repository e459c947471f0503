package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/model"
)

// Stored is a [Memory] whose turns live in a session store, so that a
// conversation can be reopened by its id in another process. It sends
// every stored turn (wrap the store's turns in your own Memory to choose
// fewer). Turns are appended with compare-and-swap on their count: when
// two processes add to one session at once, one fails with
// checkpoint.ErrConflict instead of both being lost or interleaved.
type Stored struct {
	store checkpoint.SessionStore
	id    string

	mu    sync.Mutex
	turns []Turn // the stored turns, read once
	read  bool
}

// turnJSON is a turn's stored form.
type turnJSON struct {
	Messages []model.Message `json:"messages"`
}

// NewStored returns the memory of session id in store.
func NewStored(store checkpoint.SessionStore, id string) (*Stored, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: engine: stored memory: the session store is nil", agent.ErrInvalidConfig)
	}
	if id == "" {
		return nil, fmt.Errorf("%w: engine: stored memory: the session id is empty", agent.ErrInvalidConfig)
	}
	return &Stored{store: store, id: id}, nil
}

// ID returns the session's id.
func (s *Stored) ID() string { return s.id }

// load reads the stored turns the first time. s.mu is held.
func (s *Stored) load(ctx context.Context) error {
	if s.read {
		return nil
	}
	raws, err := s.store.Load(ctx, s.id)
	if err != nil {
		return fmt.Errorf("engine: session %s: load: %w", s.id, err)
	}
	turns := make([]Turn, 0, len(raws))
	for i, raw := range raws {
		var t turnJSON
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("%w: engine: session %s: turn %d is not a loom turn: %w", checkpoint.ErrCorrupt, s.id, i+1, err)
		}
		turns = append(turns, Turn(t))
	}
	s.turns, s.read = turns, true
	return nil
}

// Messages returns every stored turn's messages, oldest first.
func (s *Stored) Messages(ctx context.Context, _ json.RawMessage) ([]model.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	return flatten(s.turns), nil
}

// Add appends turn to the store.
func (s *Stored) Add(ctx context.Context, turn Turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(ctx); err != nil {
		return err
	}
	raw, err := json.Marshal(turnJSON(turn))
	if err != nil {
		return fmt.Errorf("engine: session %s: encode the turn: %w", s.id, err)
	}
	if err := s.store.Append(ctx, s.id, len(s.turns), raw); err != nil {
		if errors.Is(err, checkpoint.ErrConflict) {
			s.read = false // another process added turns: read them again next time
		}
		return fmt.Errorf("engine: session %s: %w", s.id, err)
	}
	s.turns = append(s.turns, cloneTurn(turn))
	return nil
}

// Clear deletes the session's turns from the store.
func (s *Stored) Clear(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.Delete(ctx, s.id); err != nil {
		return fmt.Errorf("engine: session %s: %w", s.id, err)
	}
	s.turns, s.read = nil, true
	return nil
}

// WithSessions keeps the engine's sessions opened by id ([Engine.OpenSession])
// in store.
func WithSessions(store checkpoint.SessionStore) Option {
	return func(e *Engine) { e.sessions = store }
}

// OpenSession returns the conversation with a whose id is id, reopened from
// the engine's session store ([WithSessions]) with the turns it holds: the
// earlier turns reach the model as real messages, whatever process added
// them.
func (e *Engine) OpenSession(id string, a agent.Agent) (*Session, error) {
	if e.sessions == nil {
		return nil, fmt.Errorf("%w: engine: OpenSession needs a session store: create the engine with engine.WithSessions", agent.ErrInvalidConfig)
	}
	mem, err := NewStored(e.sessions, id)
	if err != nil {
		return nil, err
	}
	return e.NewSession(a, mem), nil
}
