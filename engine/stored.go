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
// fewer). Records are appended with compare-and-swap on their count: when
// two processes add to one session at once, one fails with
// checkpoint.ErrConflict instead of both being lost or interleaved.
//
// Beside the turns, a [Session] keeps in the store which turn has started
// and not been recorded (a record holding its run id and input, written
// before the run starts), so that another process can find the turn a
// kill or a question left open and finish it ([Session.Continue],
// [Session.Resume]). A turn made by a run is recorded once: adding a turn
// whose RunID is already recorded does nothing.
type Stored struct {
	store checkpoint.SessionStore
	id    string

	mu       sync.Mutex
	turns    []Turn // the stored turns, read once
	records  int    // the records in the store: turns and open-turn marks
	recorded map[string]bool
	open     *openTurn // the last record, when it opened a turn
	read     bool
}

// turnJSON is a record's stored form: a turn, or, with Open set, the mark
// of a turn that started (Open is its input).
type turnJSON struct {
	Messages []model.Message `json:"messages,omitempty"`
	Run      string          `json:"run,omitempty"`
	Open     json.RawMessage `json:"open,omitempty"`
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
	recorded := map[string]bool{}
	var open *openTurn
	for i, raw := range raws {
		var t turnJSON
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("%w: engine: session %s: turn %d is not a loom turn: %w", checkpoint.ErrCorrupt, s.id, i+1, err)
		}
		if len(t.Open) > 0 {
			open = &openTurn{runID: t.Run, input: t.Open}
			continue
		}
		if open != nil && open.runID == t.Run {
			open = nil
		}
		if t.Run != "" {
			recorded[t.Run] = true
		}
		turns = append(turns, Turn{Messages: t.Messages, RunID: t.Run})
	}
	s.turns, s.records, s.recorded, s.open, s.read = turns, len(raws), recorded, open, true
	return nil
}

// append writes raw after the records read, reading them again after a
// conflict. s.mu is held.
func (s *Stored) append(ctx context.Context, raw json.RawMessage) error {
	if err := s.store.Append(ctx, s.id, s.records, raw); err != nil {
		if errors.Is(err, checkpoint.ErrConflict) {
			s.read = false // another process added records: read them again next time
		}
		return fmt.Errorf("engine: session %s: %w", s.id, err)
	}
	s.records++
	return nil
}

// openTurn returns the turn that started and was not recorded, or nil.
func (s *Stored) openTurn(ctx context.Context) (*openTurn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.read = false // another process may have moved the session
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	return s.open, nil
}

// begin records that the turn of run runID on input started.
func (s *Stored) begin(ctx context.Context, t openTurn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(ctx); err != nil {
		return err
	}
	raw, err := json.Marshal(turnJSON{Run: t.runID, Open: t.input})
	if err != nil {
		return fmt.Errorf("engine: session %s: encode the turn's start: %w", s.id, err)
	}
	if err := s.append(ctx, raw); err != nil {
		return err
	}
	s.open = &t
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

// Add appends turn to the store. A turn whose RunID is already recorded is
// not added again, also when another process recorded it first.
func (s *Stored) Add(ctx context.Context, turn Turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(ctx); err != nil {
		return err
	}
	if turn.RunID != "" && s.recorded[turn.RunID] {
		return nil
	}
	raw, err := json.Marshal(turnJSON{Messages: turn.Messages, Run: turn.RunID})
	if err != nil {
		return fmt.Errorf("engine: session %s: encode the turn: %w", s.id, err)
	}
	if err := s.append(ctx, raw); err != nil {
		if turn.RunID != "" && errors.Is(err, checkpoint.ErrConflict) {
			if lerr := s.load(ctx); lerr == nil && s.recorded[turn.RunID] {
				return nil // another process recorded this run's turn
			}
		}
		return err
	}
	s.turns = append(s.turns, cloneTurn(turn))
	if turn.RunID != "" {
		s.recorded[turn.RunID] = true
		if s.open != nil && s.open.runID == turn.RunID {
			s.open = nil
		}
	}
	return nil
}

// Clear deletes the session's turns from the store.
func (s *Stored) Clear(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.Delete(ctx, s.id); err != nil {
		return fmt.Errorf("engine: session %s: %w", s.id, err)
	}
	s.turns, s.records, s.recorded, s.open, s.read = nil, 0, map[string]bool{}, nil, true
	return nil
}

// OpenSession returns the conversation with a whose id is id, reopened from
// the engine's session store ([Config.Sessions]) with the turns it holds: the
// earlier turns reach the model as real messages, whatever process added
// them.
func (e *Engine) OpenSession(id string, a agent.Agent) (*Session, error) {
	if e.sessions == nil {
		return nil, fmt.Errorf("%w: engine: OpenSession needs a session store: create the engine with engine.Config.Sessions", agent.ErrInvalidConfig)
	}
	mem, err := NewStored(e.sessions, id)
	if err != nil {
		return nil, err
	}
	return e.NewSession(a, mem), nil
}
