package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
)

// Format is the version tag of the graph checkpoints' State JSON. A
// checkpoint with another tag is refused with an error wrapping
// [ErrFormat].
const Format = "loom.graph/v1"

// Statuses of a thread, as its head checkpoint records them.
const (
	StatusRunning = "running" // steps remain (or the process died in one)
	StatusWaiting = "waiting" // stopped at human-input requests
	StatusFailed  = "failed"  // a node failed; the others' writes are kept
	StatusDone    = "done"    // reached END
)

// record is what a graph checkpoint's State holds.
type record struct {
	Format  string `json:"format"`
	Graph   string `json:"graph"`
	Status  string `json:"status"`
	Step    int    `json:"step"`     // super-steps completed on the thread
	RunStep int    `json:"run_step"` // Step when the current run's input came
	// Run is the id of the agent run whose input started the thread's
	// current run: an engine's resume of that run continues the thread.
	Run   string `json:"run,omitempty"`
	State fields `json:"state"`
	Next  []task `json:"next,omitempty"`
	// Done holds the writes of the tasks of Next that finished (pending
	// writes), so a resume does not run them again.
	Done    map[string][]Write `json:"done,omitempty"`
	Waiting []Request          `json:"waiting,omitempty"`
	// Answers holds answers to a sub-graph's requests, to deliver when the
	// sub-graph task runs.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	Joins   map[string][]string        `json:"joins,omitempty"`
	Runs    map[string]int             `json:"runs,omitempty"` // node runs since the input
	Error   string                     `json:"error,omitempty"`
}

// task is one node activation of a step.
type task struct {
	ID    string `json:"id"` // the node's name, with "#i" for the i-th Send
	Node  string `json:"node"`
	State fields `json:"state,omitempty"` // a Send's own state
}

// Request is a question a thread waits for.
type Request struct {
	// ID is the answer's key for Resume: stable, made of the thread, the
	// step and the task.
	ID string `json:"id"`
	// Node is the waiting task (the node, with "#i" for a Send).
	Node    string          `json:"node"`
	Kind    string          `json:"kind"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`
	// Thread is set when a sub-graph asked: the sub-graph's thread.
	Thread string `json:"thread,omitempty"`
}

// question returns q as the agent package's question, asked by run r (nil
// when no run asks, as when Resume checks an answer).
func (q Request) question(r *agent.Run) agent.Question {
	aq := agent.Question{ID: q.ID, Kind: q.Kind, Payload: q.Payload, Schema: q.Schema}
	if r != nil {
		root := r
		for root.Parent() != nil {
			root = root.Parent()
		}
		aq.RunID, aq.RootID = r.ID, root.ID
	}
	return aq
}

// clone returns a copy of r that shares only immutable values (the JSON
// of fields and writes).
func (r *record) clone() *record {
	c := *r
	c.State = maps.Clone(r.State)
	c.Next = slices.Clone(r.Next)
	c.Done = maps.Clone(r.Done)
	c.Waiting = slices.Clone(r.Waiting)
	c.Answers = maps.Clone(r.Answers)
	c.Runs = maps.Clone(r.Runs)
	c.Joins = nil
	if r.Joins != nil {
		c.Joins = make(map[string][]string, len(r.Joins))
		for k, v := range r.Joins {
			c.Joins[k] = slices.Clone(v)
		}
	}
	return &c
}

// blocked reports whether the task waits for answers it has not got.
func (r *record) blocked(id string) bool {
	waits, answered := false, false
	for _, q := range r.Waiting {
		if q.Node == id {
			waits = true
			if _, ok := r.Answers[q.ID]; ok {
				answered = true
			}
		}
	}
	return waits && !answered
}

// readRecord decodes a checkpoint of thread.
func readRecord(cp checkpoint.Checkpoint) (*record, error) {
	var r record
	if err := json.Unmarshal(cp.State, &r); err != nil {
		return nil, fmt.Errorf("%w: thread %q checkpoint %d: %v", ErrFormat, cp.RunID, cp.Seq, err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%w: thread %q checkpoint %d has format %q; this version reads %q", ErrFormat, cp.RunID, cp.Seq, r.Format, Format)
	}
	return &r, nil
}

// head returns the thread's head checkpoint and its record, or a nil
// record when the thread has none.
func (c *Compiled[S]) head(ctx context.Context, thread string) (int64, *record, error) {
	cp, err := c.store.Head(ctx, thread)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("graph %s: thread %q: %w", c.name, thread, err)
	}
	rec, err := readRecord(cp)
	if err != nil {
		return 0, nil, err
	}
	if rec.Graph != c.name {
		return 0, nil, fmt.Errorf("graph %s: thread %q holds checkpoints of graph %q; give each graph its own threads", c.name, thread, rec.Graph)
	}
	return cp.Seq, rec, nil
}

// put saves rec as checkpoint seq of thread.
func (c *Compiled[S]) put(ctx context.Context, thread string, seq int64, kind string, rec *record) error {
	rec.Format, rec.Graph = Format, c.name
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("graph %s: encode checkpoint: %w", c.name, err)
	}
	err = c.store.Put(ctx, checkpoint.Checkpoint{
		RunID: thread, Seq: seq, Kind: kind, Time: agent.Now(ctx), State: b,
		Meta: map[string]string{"graph": c.name, "status": rec.Status},
	})
	if err != nil {
		return fmt.Errorf("graph %s: save checkpoint %d of thread %q: %w", c.name, seq, thread, err)
	}
	return nil
}

type threadKey struct{}

// WithThread returns ctx under which a compiled graph's run keeps its
// checkpoints under thread id. Without one, a run's thread is its run id
// followed by "/graph" (see [RunThread]), so that an engine that saves its
// runs in the same checkpoint store keeps its own records apart. Nodes do
// not see their graph's thread.
func WithThread(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, threadKey{}, id)
}

// RunThread returns the thread of the graph run runID when no thread was
// set with [WithThread].
func RunThread(runID string) string { return runID + "/graph" }

func threadFrom(ctx context.Context, runID string) string {
	if id, _ := ctx.Value(threadKey{}).(string); id != "" {
		return id
	}
	return RunThread(runID)
}
