package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

// The metadata keys a [Memory] sets on the turns it indexes.
const (
	MetaSession = "session" // the conversation's id
	MetaTurn    = "turn"    // the turn's index in the conversation, from 0
)

// maxTurnTextBytes bounds the text of one turn sent to the embedder; long
// tool results past it are not indexed.
const maxTurnTextBytes = 8000

// Config configures a [Memory]. Zero values mean defaults;
// negative numbers are errors.
type Config struct {
	// Store indexes the turns for recall and must have an embedder. One
	// store may serve many conversations: each turn carries its session
	// ([MetaSession]) and every search filters by it. A persistent store
	// (vector/sqlite) spares re-embedding the turns when a process reopens the
	// conversation.
	Store vector.Store
	// Sessions keeps the turns themselves, so the conversation survives
	// the process (checkpoint/sqlite, checkpoint/postgres). Nil keeps them
	// in this process only.
	Sessions checkpoint.SessionStore
	// SessionID names the conversation in Sessions and Store; required.
	SessionID string
	// Recent is how many of the latest turns are always sent verbatim: 0
	// means 4.
	Recent int
	// Recall is the most earlier turns recalled by similarity to the coming
	// input: 0 means 3.
	Recall int
	// MinScore leaves out recalled turns scoring below it, as
	// [vector.Query.MinScore] (cosine scores can be negative, and so can
	// this bound).
	MinScore float32 `config:"negative"`
	// MaxTokens is the budget of all the turns sent: 0 means 2000.
	MaxTokens int
	// Estimate counts a turn's tokens; nil means engine.EstimateTokens.
	Estimate func([]model.Message) int
}

// Memory is an engine.Memory that keeps the last few turns of a
// conversation verbatim and recalls relevant earlier turns by the
// similarity of their text to the coming input, within a token budget.
//
// Before a turn, [Memory.Messages] fills the budget with the recent
// turns, newest first, then with the earlier turns that best match the
// input, and returns them all in their original order. Turns are kept or
// left out whole, so a tool call never loses its result.
//
// With a session store the turns persist: a RecallMemory opened on the same
// session in another process loads them on first use, and indexes those
// its Store lacks. It is safe for concurrent use.
type Memory struct {
	cfg Config

	mu     sync.Mutex
	loaded bool
	turns  []engine.Turn
	tokens []int
}

var _ engine.Memory = (*Memory)(nil)

// New checks cfg and returns the memory; it loads nothing until first
// used.
func New(cfg Config) (*Memory, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("vector/recall: Store is nil; give a store with an embedder, as vector.NewMemory(vector.MemoryConfig{Embedder: e})")
	case cfg.SessionID == "":
		return nil, errors.New("vector/recall: SessionID is empty; name the conversation")
	case cfg.Recent < 0 || cfg.Recall < 0 || cfg.MaxTokens < 0:
		return nil, fmt.Errorf("vector/recall: Recent (%d), Recall (%d) and MaxTokens (%d) must not be negative; 0 means the default",
			cfg.Recent, cfg.Recall, cfg.MaxTokens)
	}
	if cfg.Recent == 0 {
		cfg.Recent = 4
	}
	if cfg.Recall == 0 {
		cfg.Recall = 3
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = 2000
	}
	if cfg.Estimate == nil {
		cfg.Estimate = engine.EstimateTokens
	}
	return &Memory{cfg: cfg}, nil
}

// storedTurn is a turn's JSON form in the session store.
type storedTurn struct {
	Messages []model.Message `json:"messages"`
}

// Messages returns the turns to send before input, oldest first: the
// recent turns that fit the budget, then the earlier turns most similar
// to input's text that fit what is left.
func (m *Memory) Messages(ctx context.Context, input json.RawMessage) ([]model.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	n := len(m.turns)
	selected := make([]bool, n)
	budget := m.cfg.MaxTokens
	first := n
	for i := n - 1; i >= max(0, n-m.cfg.Recent); i-- {
		if m.tokens[i] > budget {
			break
		}
		budget -= m.tokens[i]
		selected[i] = true
		first = i
	}
	if text := strings.TrimSpace(flow.TextOf(input)); first > 0 && text != "" {
		ms, err := m.cfg.Store.Search(ctx, vector.Query{
			Text: text, K: 2 * m.cfg.Recall, MinScore: m.cfg.MinScore,
			Filter: vector.And(vector.Eq(MetaSession, m.cfg.SessionID), vector.Lt(MetaTurn, float64(first))),
		})
		if err != nil {
			return nil, fmt.Errorf("vector/recall: search earlier turns: %w", err)
		}
		recalled := 0
		for _, match := range ms {
			i, ok := turnIndex(match.Metadata, first)
			if !ok || selected[i] || m.tokens[i] > budget {
				continue
			}
			budget -= m.tokens[i]
			selected[i] = true
			if recalled++; recalled == m.cfg.Recall {
				break
			}
		}
	}
	var msgs []model.Message
	for i, ok := range selected {
		if ok {
			msgs = append(msgs, m.turns[i].Messages...)
		}
	}
	return msgs, nil
}

// turnIndex reads a recalled turn's index, which must lie below limit.
func turnIndex(md map[string]any, limit int) (int, bool) {
	f, ok := md[MetaTurn].(float64)
	i := int(f)
	return i, ok && float64(i) == f && i >= 0 && i < limit
}

// Add records a finished turn: in the session store, then in the index.
// When another process appended to the session meanwhile, it reloads the
// session and appends after its turns.
func (m *Memory) Add(ctx context.Context, turn engine.Turn) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.load(ctx); err != nil {
		return err
	}
	t := engine.Turn{Messages: slices.Clone(turn.Messages)}
	if s := m.cfg.Sessions; s != nil {
		raw, err := json.Marshal(storedTurn{Messages: t.Messages})
		if err != nil {
			return fmt.Errorf("vector/recall: encode the turn: %w", err)
		}
		err = s.Append(ctx, m.cfg.SessionID, len(m.turns), raw)
		if errors.Is(err, checkpoint.ErrConflict) {
			m.loaded = false
			if err = m.load(ctx); err == nil {
				err = s.Append(ctx, m.cfg.SessionID, len(m.turns), raw)
			}
		}
		if err != nil {
			return fmt.Errorf("vector/recall: keep the turn: %w", err)
		}
	}
	m.turns = append(m.turns, t)
	m.tokens = append(m.tokens, m.cfg.Estimate(t.Messages))
	if err := m.index(ctx, len(m.turns)-1); err != nil {
		return fmt.Errorf("vector/recall: index turn %d: %w", len(m.turns)-1, err)
	}
	return nil
}

// Clear forgets every turn: in the session store and in the index.
func (m *Memory) Clear(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.load(ctx); err != nil {
		return err
	}
	if s := m.cfg.Sessions; s != nil {
		if err := s.Delete(ctx, m.cfg.SessionID); err != nil {
			return fmt.Errorf("vector/recall: clear the session: %w", err)
		}
	}
	ids := make([]string, len(m.turns))
	for i := range ids {
		ids[i] = m.turnID(i)
	}
	if err := m.cfg.Store.Delete(ctx, ids...); err != nil {
		return fmt.Errorf("vector/recall: clear the index: %w", err)
	}
	m.turns, m.tokens = nil, nil
	return nil
}

// Len returns the number of turns kept.
func (m *Memory) Len(ctx context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.load(ctx); err != nil {
		return 0, err
	}
	return len(m.turns), nil
}

func (m *Memory) turnID(i int) string { return fmt.Sprintf("%s#turn-%d", m.cfg.SessionID, i) }

// load reads the session's turns once and indexes those the store lacks.
func (m *Memory) load(ctx context.Context) error {
	if m.loaded {
		return nil
	}
	m.turns, m.tokens = nil, nil
	if s := m.cfg.Sessions; s != nil {
		raws, err := s.Load(ctx, m.cfg.SessionID)
		if err != nil {
			return fmt.Errorf("vector/recall: load session %q: %w", m.cfg.SessionID, err)
		}
		for i, raw := range raws {
			var st storedTurn
			if err := json.Unmarshal(raw, &st); err != nil {
				return fmt.Errorf("vector/recall: session %q turn %d: %w", m.cfg.SessionID, i, err)
			}
			m.turns = append(m.turns, engine.Turn{Messages: st.Messages})
			m.tokens = append(m.tokens, m.cfg.Estimate(st.Messages))
		}
	}
	if err := m.reindex(ctx); err != nil {
		return err
	}
	m.loaded = true
	return nil
}

// reindex stores the turns missing from the index, as after a restart with
// an in-memory store.
func (m *Memory) reindex(ctx context.Context) error {
	if len(m.turns) == 0 {
		return nil
	}
	have := map[string]bool{}
	ms, err := m.cfg.Store.Search(ctx, vector.Query{Text: "conversation", K: len(m.turns), Filter: vector.Eq(MetaSession, m.cfg.SessionID)})
	if err != nil {
		return fmt.Errorf("vector/recall: list indexed turns: %w", err)
	}
	for _, match := range ms {
		have[match.ID] = true
	}
	var docs []vector.Document
	for i := range m.turns {
		if d, ok := m.doc(i); ok && !have[d.ID] {
			docs = append(docs, d)
		}
	}
	for lo := 0; lo < len(docs); lo += 64 {
		if err := m.cfg.Store.Upsert(ctx, docs[lo:min(lo+64, len(docs))]...); err != nil {
			return fmt.Errorf("vector/recall: index earlier turns: %w", err)
		}
	}
	return nil
}

// index stores turn i in the index.
func (m *Memory) index(ctx context.Context, i int) error {
	d, ok := m.doc(i)
	if !ok {
		return nil
	}
	return m.cfg.Store.Upsert(ctx, d)
}

// doc is turn i as a document: its messages' text, one "role: text" line
// each; false for a turn with no text.
func (m *Memory) doc(i int) (vector.Document, bool) {
	var b strings.Builder
	for _, msg := range m.turns[i].Messages {
		if t := strings.TrimSpace(msg.Text()); t != "" {
			fmt.Fprintf(&b, "%s: %s\n", msg.Role, t)
		}
	}
	if b.Len() == 0 {
		return vector.Document{}, false
	}
	return vector.Document{
		ID:       m.turnID(i),
		Text:     cut(b.String(), maxTurnTextBytes),
		Metadata: map[string]any{MetaSession: m.cfg.SessionID, MetaTurn: float64(i)},
	}, true
}

// cut returns s cut to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
