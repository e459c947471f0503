package graph_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
)

// Review is the state of the example's graph.
type Review struct {
	Draft    string   `json:"draft"`
	Approved bool     `json:"approved"`
	Log      []string `json:"log"`
}

// A graph that drafts, asks a person to approve, and publishes. Under an
// engine that saves its runs, the run stops at the approval; the engine's
// Resume applies the answer as the approval node's output and continues,
// without running the draft again.
func Example() {
	ctx := context.Background()
	g := graph.New[Review](graph.Config{Name: "publish"}).
		Reducer("log", graph.Append()).
		Node("draft", func(_ context.Context, s Review) (Review, error) {
			s.Draft = "Hello, world"
			s.Log = append(s.Log, "drafted")
			return s, nil
		}).
		Ask("approve", func(s Review) (graph.Question, error) {
			return graph.Question{
				Kind:    "approval",
				Payload: map[string]string{"draft": s.Draft},
				Schema:  json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
			}, nil
		}, func(s Review, answer json.RawMessage) (Review, error) {
			var a struct{ OK bool }
			err := json.Unmarshal(answer, &a)
			s.Approved = a.OK
			return s, err
		}).
		Node("publish", func(_ context.Context, s Review) (Review, error) {
			s.Log = append(s.Log, "published")
			return s, nil
		}).
		Edge(graph.START, "draft").Edge("draft", "approve").
		Branch("approve", func(_ context.Context, s Review) ([]string, error) {
			if s.Approved {
				return []string{"publish"}, nil
			}
			return []string{graph.END}, nil
		}, "publish", graph.END).
		Edge("publish", graph.END)
	c, err := g.Compile()
	if err != nil {
		fmt.Println(err)
		return
	}

	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	ctx = agentrt.WithIDs(ctx, func() string { return "review-1" })
	_, err = e.Invoke(ctx, c, Review{})
	ie := agentrt.Interrupts(err)
	if ie == nil {
		fmt.Println("expected a question, got", err)
		return
	}
	q := ie.Questions[0]
	fmt.Println("asks:", q.ID, q.Kind, string(q.Payload))

	pending, err := e.Pending(ctx, "review-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pending:", len(pending), pending[0].ID == q.ID)

	res, err := e.ResumeInvoke(ctx, c, "review-1", map[string]json.RawMessage{q.ID: json.RawMessage(`{"ok":true}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var out Review
	if err := res.Decode(&out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Log, out.Approved)
	// Output:
	// asks: review-1.2.1?1 approval {"draft":"Hello, world"}
	// pending: 1 true
	// [drafted published] true
}
