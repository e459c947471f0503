package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/sandbox"
)

// graph builds a graph entry: its agents, its sandbox when it has
// expressions, its nodes and edges.
func (b *builder) graph(name string, c *Graph) (agent.Agent, error) {
	var exec sandbox.Executor
	if c.hasExpressions() {
		var err error
		if exec, err = b.sandbox(c.Sandbox); err != nil {
			return nil, err
		}
	}
	g := graph.New[gstate](graph.Config{Name: name, Description: c.Description, MaxSteps: c.MaxSteps, MaxParallel: c.MaxParallel})
	g.Reducer("state", graph.Merge())
	for _, n := range c.order {
		node := c.Nodes[n]
		key := node.Output
		if key == "" {
			key = n
		}
		if node.Human != nil {
			g.Ask(n, humanQuestion(node.Human), func(s gstate, answer json.RawMessage) (gstate, error) {
				return s.with(key, answer), nil
			})
			continue
		}
		a, err := b.agent(node.Agent)
		if err != nil {
			return nil, err
		}
		g.Node(n, agentNode(n, a, strings.TrimSpace(node.Input), key, exec))
	}
	edge := func(name string) string {
		switch name {
		case GraphStart:
			return graph.START
		case GraphEnd:
			return graph.END
		}
		return name
	}
	if c.Entry != "" {
		g.Edge(graph.START, c.Entry)
	}
	for _, f := range c.Finish {
		g.Edge(f, graph.END)
	}
	for _, e := range c.Edges {
		targets := make([]string, len(e.Targets))
		for i, t := range e.Targets {
			targets[i] = edge(t)
		}
		switch {
		case e.To != "":
			g.Edge(edge(e.From), edge(e.To))
		case e.Branch != "":
			g.Branch(edge(e.From), branchExpr(e.Branch, exec), targets...)
		default:
			fn := b.reg.Branches[e.Func]
			if fn == nil {
				return nil, fmt.Errorf("branch from %s: no function %q in Registry.Branches", e.From, e.Func)
			}
			g.Branch(edge(e.From), branchFunc(fn), targets...)
		}
	}
	compiled, err := g.Compile()
	if err != nil {
		return nil, err
	}
	return &graphAgent{name: name, desc: c.Description, c: compiled}, nil
}

// with returns s with key set to v, leaving s's map as it was.
func (s gstate) with(key string, v json.RawMessage) gstate {
	m := maps.Clone(s.State)
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[key] = v
	return gstate{State: m}
}

// humanQuestion returns the question of a human node: its prompt and the
// state keys it shows.
func humanQuestion(h *Human) func(s gstate) (graph.Question, error) {
	kind, schema := h.Kind, json.RawMessage(nil)
	switch kind {
	case "approval":
		kind, schema = codeexec.ApprovalKind, codeexec.ApprovalSchema
	case "", "input":
		kind = "input"
		if h.AnswerSchema != nil {
			schema = h.AnswerSchema.JSON
		}
	}
	return func(s gstate) (graph.Question, error) {
		shown := map[string]json.RawMessage{}
		for _, k := range h.Show {
			if v, ok := s.State[k]; ok {
				shown[k] = v
			}
		}
		return graph.Question{Kind: kind, Schema: schema, Payload: map[string]any{"prompt": h.Prompt, "state": shown}}, nil
	}
}

// agentNode runs a as a nested run of the node's task, on the value of
// the input expression (or the whole state), and writes its output to
// key. The agent's run is a nested run of the node's: under a durable
// engine, a node run again replays it when it had ended, and an agent that
// asks (an approval) makes the graph wait until the engine's resume.
func agentNode(node string, a agent.Agent, input, key string, exec sandbox.Executor) func(ctx context.Context, s gstate) (gstate, error) {
	return func(ctx context.Context, s gstate) (gstate, error) {
		in, err := json.Marshal(s.State)
		if err != nil {
			return s, err
		}
		if input != "" {
			if in, err = eval(ctx, exec, input, s); err != nil {
				return s, fmt.Errorf("node %s: input: %w", node, err)
			}
		}
		r := agent.CurrentRun(ctx)
		end, err := agentrt.Child(ctx, r, a, in)
		if err != nil {
			return s, err
		}
		return s.with(key, end.Output), nil
	}
}
