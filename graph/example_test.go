package graph_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/graph"
)

// Review is the state of the example's graph.
type Review struct {
	Draft    string   `json:"draft"`
	Approved bool     `json:"approved"`
	Log      []string `json:"log"`
}

// A graph that drafts, asks a person to approve, and publishes. The run
// stops at the approval; Resume applies the answer as the approval node's
// output and continues, without running the draft again.
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

	_, err = c.Invoke(ctx, "review-1", Review{})
	ie := agent.Interrupts(err)
	if ie == nil {
		fmt.Println("expected a question, got", err)
		return
	}
	q := ie.Questions[0]
	fmt.Println("asks:", q.ID, q.Kind, string(q.Payload))

	out, err := c.ResumeInvoke(ctx, "review-1", map[string]json.RawMessage{q.ID: json.RawMessage(`{"ok":true}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Log, out.Approved)
	// Output:
	// asks: review-1:2:approve approval {"draft":"Hello, world"}
	// [drafted published] true
}
