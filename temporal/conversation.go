package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/loomwork/loom/model"
)

// conversations is the workflow side's record of what each model
// conversation already sent, so that a model call ships only the messages
// the worker has not seen. It lives in workflow memory, rebuilt the same
// way on replay.
type conversations struct {
	list []*conversation
}

type conversation struct {
	id   string
	sent [][]byte // the JSON of each message the worker holds
}

// delta finds the longest recorded conversation whose messages begin msgs
// and returns its id and how many of msgs the worker already holds; with
// none, it starts a conversation and returns a base of 0.
func (cs *conversations) delta(prefix string, msgs [][]byte) (*conversation, int) {
	var best *conversation
	for _, c := range cs.list {
		if len(c.sent) > len(msgs) || (best != nil && len(c.sent) <= len(best.sent)) {
			continue
		}
		match := true
		for i, m := range c.sent {
			if !bytes.Equal(m, msgs[i]) {
				match = false
				break
			}
		}
		if match {
			best = c
		}
	}
	if best == nil || len(best.sent) == 0 {
		c := &conversation{id: prefix + "/c" + strconv.Itoa(len(cs.list)+1)}
		cs.list = append(cs.list, c)
		return c, 0
	}
	return best, len(best.sent)
}

// ConversationStore keeps, on the worker side, the messages of each model
// conversation a workflow started, so that a model call's activity input
// holds only the new messages. A store that lost a conversation (another
// worker, a restart) is not an error: the workflow then sends the whole
// conversation once. A store shared by all workers (a database) avoids
// that resend.
type ConversationStore interface {
	// Load returns the messages of conversation id, or ok false.
	Load(ctx context.Context, id string) (msgs []model.Message, ok bool, err error)
	// Save replaces the messages of conversation id.
	Save(ctx context.Context, id string, msgs []model.Message) error
}

// MemoryConversations is a [ConversationStore] in the worker's memory,
// holding at most Max conversations (default 1024); the oldest saved is
// dropped first. The zero value is ready to use.
type MemoryConversations struct {
	Max   int
	mu    sync.Mutex
	convs map[string][]model.Message
	order []string
}

// Load returns the messages of conversation id.
func (s *MemoryConversations) Load(_ context.Context, id string) ([]model.Message, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs, ok := s.convs[id]
	return msgs, ok, nil
}

// Save replaces the messages of conversation id.
func (s *MemoryConversations) Save(_ context.Context, id string, msgs []model.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.convs == nil {
		s.convs = make(map[string][]model.Message)
	}
	if _, ok := s.convs[id]; !ok {
		s.order = append(s.order, id)
	}
	s.convs[id] = msgs
	limit := s.Max
	if limit <= 0 {
		limit = 1024
	}
	for len(s.order) > limit {
		delete(s.convs, s.order[0])
		s.order = s.order[1:]
	}
	return nil
}

// encodeMessages returns the JSON of each message.
func encodeMessages(msgs []model.Message) ([][]byte, error) {
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}
