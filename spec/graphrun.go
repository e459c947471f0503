package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/sandbox"
)

// Resumable is an agent that keeps its own checkpoints, as a graph entry
// does: a run of it that stopped for answers is continued with ResumeRun,
// given the id of the run that stopped, not with an engine's Resume.
type Resumable interface {
	agent.Agent
	// ResumeRun continues the stopped run runID with answers keyed by
	// question id, and yields the new run's events.
	ResumeRun(ctx context.Context, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error]
	// Pending returns the questions the stopped run runID waits for.
	Pending(ctx context.Context, runID string) ([]agent.Question, error)
}

// Resuming returns an agent whose run is g.ResumeRun(ctx, runID,
// answers), whatever its input: the continuation as an agent, so that an
// engine runs it with its limits, hooks, tracing and checkpoints.
func Resuming(g Resumable, runID string, answers map[string]json.RawMessage) agent.Agent {
	return resuming{Resumable: g, runID: runID, answers: answers}
}

type resuming struct {
	Resumable
	runID   string
	answers map[string]json.RawMessage
}

// Run continues the stopped run.
func (r resuming) Run(ctx context.Context, _ json.RawMessage) iter.Seq2[agent.Event, error] {
	return r.ResumeRun(ctx, r.runID, r.answers)
}

// ErrGraphWaiting is returned when a graph entry's run is started again
// (an engine replaying it) while its graph waits for answers.
var ErrGraphWaiting = errors.New("spec: the graph waits for answers")

// gstate is a graph entry's state: the JSON values by key, merged so that
// each node writes only the keys it changed.
type gstate struct {
	State map[string]json.RawMessage `json:"state"`
}

// graphAgent is a graph entry: its input object is the initial state, its
// output the final state.
type graphAgent struct {
	name, desc string
	c          *graph.Compiled[gstate]
}

var _ Resumable = (*graphAgent)(nil)

func (g *graphAgent) Name() string                  { return g.name }
func (g *graphAgent) Description() string           { return g.desc }
func (g *graphAgent) InputSchema() json.RawMessage  { return flow.AnyObject }
func (g *graphAgent) OutputSchema() json.RawMessage { return flow.AnyObject }
func (g *graphAgent) Kind() string                  { return "graph" }

// thread is the graph's thread for the run runID: its own key in a
// checkpoint store the engine may share.
func thread(runID string) string { return runID + "/graph" }

// Run runs the graph on input, a JSON object: the initial state.
func (g *graphAgent) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agent.Execute(ctx, g, input, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		var state map[string]json.RawMessage
		if err := json.Unmarshal(input, &state); err != nil || state == nil {
			return nil, fmt.Errorf("%w: graph %s: the input must be a JSON object, the graph's first state; got %.100s", agent.ErrInvalidInput, g.name, input)
		}
		in, err := json.Marshal(gstate{State: state})
		if err != nil {
			return nil, err
		}
		// A run replayed by an engine's resume finds its graph waiting: the
		// graph continues only from its own checkpoint.
		if waiting, err := g.c.Pending(ctx, thread(r.ID)); err == nil && len(waiting) > 0 {
			return nil, fmt.Errorf("%w: graph %s of run %s waits for answers at its human nodes: continue it with spec.Resuming (loom resume), as the agent that runs; a graph nested in another agent cannot be resumed", ErrGraphWaiting, g.name, r.ID)
		}
		end, err := r.Child(graph.WithThread(ctx, thread(r.ID)), g.c, in)
		if err != nil {
			return nil, err
		}
		return stateOf(end.Output)
	})
}

// ResumeRun continues the graph of run runID from its last checkpoint.
func (g *graphAgent) ResumeRun(ctx context.Context, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error] {
	in, _ := json.Marshal(map[string]any{"resume": runID, "answers": slices.Sorted(maps.Keys(answers))})
	return agent.Execute(ctx, g, in, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		end, err := r.Child(ctx, resumer{c: g.c, thread: thread(runID), answers: answers}, in)
		if err != nil {
			return nil, err
		}
		return stateOf(end.Output)
	})
}

// Pending returns the questions the graph of run runID waits for.
func (g *graphAgent) Pending(ctx context.Context, runID string) ([]agent.Question, error) {
	reqs, err := g.c.Pending(ctx, thread(runID))
	if err != nil {
		return nil, err
	}
	qs := make([]agent.Question, len(reqs))
	for i, r := range reqs {
		qs[i] = agent.Question{ID: r.ID, RootID: runID, Kind: r.Kind, Payload: r.Payload, Schema: r.Schema}
	}
	return qs, nil
}

func stateOf(out json.RawMessage) (json.RawMessage, error) {
	var s gstate
	if err := json.Unmarshal(out, &s); err != nil {
		return nil, fmt.Errorf("graph: decode the final state: %w", err)
	}
	if s.State == nil {
		return json.RawMessage(`{}`), nil
	}
	return json.Marshal(s.State)
}

// resumer is the resumed graph, as an agent that runs beneath the entry.
type resumer struct {
	c       *graph.Compiled[gstate]
	thread  string
	answers map[string]json.RawMessage
}

func (r resumer) Name() string                  { return r.c.Name() }
func (r resumer) Description() string           { return r.c.Description() }
func (r resumer) InputSchema() json.RawMessage  { return nil }
func (r resumer) OutputSchema() json.RawMessage { return nil }
func (r resumer) Run(ctx context.Context, _ json.RawMessage) iter.Seq2[agent.Event, error] {
	return r.c.Resume(ctx, r.thread, r.answers)
}

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
	g := graph.New[gstate](graph.Config{Name: name, Description: c.Description, Store: b.reg.Checkpoints, MaxSteps: c.MaxSteps, MaxParallel: c.MaxParallel})
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
		g.Node(n, agentNode(n, a, node.Input, key, exec))
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
			g.Branch(edge(e.From), branchFunc(b.reg.Branches[e.Func]), targets...)
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
// key. The agent's output is saved before the state changes (graph.Once),
// so a node run again does not run the agent again.
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
		out, err := graph.Once(ctx, "agent", func(ctx context.Context) (json.RawMessage, error) {
			end, err := r.Child(ctx, a, in)
			return end.Output, err
		})
		if err != nil {
			if agent.Interrupts(err) != nil {
				return s, fmt.Errorf("node %s: agent %s asked a question inside a graph; ask through a human node, so that a resume does not run the agent again (%w)", node, a.Name(), err)
			}
			return s, err
		}
		return s.with(key, out), nil
	}
}

// branchExpr picks the next nodes with a JavaScript expression over the
// state, run in the sandbox.
func branchExpr(expr string, exec sandbox.Executor) func(ctx context.Context, s gstate) ([]string, error) {
	return func(ctx context.Context, s gstate) ([]string, error) {
		v, err := eval(ctx, exec, expr, s)
		if err != nil {
			return nil, err
		}
		return namesOf(v)
	}
}

// branchFunc adapts a registered Go function.
func branchFunc(fn BranchFunc) func(ctx context.Context, s gstate) ([]string, error) {
	return func(ctx context.Context, s gstate) ([]string, error) {
		names, err := fn(ctx, maps.Clone(s.State))
		if err != nil {
			return nil, err
		}
		return endsOf(names), nil
	}
}

// namesOf reads a branch's value: a node name or a list of them.
func namesOf(v json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return endsOf([]string{one}), nil
	}
	var many []string
	if json.Unmarshal(v, &many) == nil {
		return endsOf(many), nil
	}
	return nil, fmt.Errorf("the expression returned %.100s: want a node's name, a list of names, or \"end\"", v)
}

// endsOf maps the file's end to the graph package's.
func endsOf(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if n == GraphEnd {
			n = graph.END
		}
		out[i] = n
	}
	return out
}

// eval runs a JavaScript expression in the sandbox with the state bound to
// the constant state, and returns its value as JSON.
func eval(ctx context.Context, exec sandbox.Executor, expr string, s gstate) (json.RawMessage, error) {
	st, err := json.Marshal(s.State)
	if err != nil {
		return nil, err
	}
	if s.State == nil {
		st = []byte(`{}`)
	}
	res, err := exec.Run(ctx, "const state = "+string(st)+";\n(\n"+expr+"\n)")
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", expr, err)
	}
	if len(bytes.TrimSpace(res.Value)) == 0 {
		return json.RawMessage("null"), nil
	}
	return res.Value, nil
}
