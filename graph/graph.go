package graph

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
)

// Reserved node names: where a run enters and where it ends.
const (
	START = "__start__"
	END   = "__end__"
)

// Defaults of [Config].
const (
	DefaultMaxSteps    = 25
	DefaultMaxParallel = 4
)

// Config configures a graph. Zero values mean the defaults; negative ones
// are an error from [Graph.Compile].
type Config struct {
	// Name is the compiled agent's name (a valid tool name).
	Name string
	// Description tells a model what the graph does when it is a tool.
	Description string
	// MaxSteps bounds the super-steps of one run, counted since the run
	// started: the steps before a resume, a kill or a fork count too; 0
	// means [DefaultMaxSteps].
	MaxSteps int
	// MaxParallel bounds how many nodes of a step run at once; 0 means
	// [DefaultMaxParallel].
	MaxParallel int
}

// Graph builds a graph over the state S, a struct with a JSON form. Its
// methods record nodes and edges and return g, so calls chain; mistakes
// are reported together by [Graph.Compile].
type Graph[S any] struct {
	cfg      Config
	nodes    map[string]*node[S]
	order    []string
	edges    map[string][]string
	branches map[string][]branch[S]
	joins    []join
	reducers map[string]Reducer
	problems []string
}

type nodeKind string

const (
	kindFunc  nodeKind = "func"
	kindAgent nodeKind = "agent"
	kindAsk   nodeKind = "ask"
	kindGraph nodeKind = "graph"
)

type node[S any] struct {
	name string
	kind nodeKind
	fn   func(ctx context.Context, r *agent.Run, s S) (S, error)
	ask  func(s S) (Question, error)
	// apply turns an answer into the asking node's output.
	apply func(s S, answer json.RawMessage) (S, error)
	sub   agent.Agent
	in    func(s S) (json.RawMessage, error)
	out   func(s S, output json.RawMessage) (S, error)
}

// branch is a conditional edge (route) or a dynamic fan-out (send).
type branch[S any] struct {
	route   func(ctx context.Context, s S) ([]string, error)
	send    func(ctx context.Context, s S) ([]Send[S], error)
	targets []string
}

type join struct {
	to   string
	from []string
}

// Send is one task of a dynamic fan-out ([Graph.Dispatch]): Node runs on
// State instead of the step's state, and its writes are what it changed
// relative to State.
type Send[S any] struct {
	Node  string
	State S
}

// Question is what a human-input node ([Graph.Ask]) asks: it is asked
// through [agent.Ask], so the run waits with an [agent.Question] (the one
// question type of every run) whose id the engine's Pending lists.
type Question struct {
	// Kind says what is asked, such as "approval" or "input".
	Kind string
	// Payload is what the person needs to answer.
	Payload any
	// Schema is the JSON schema the answer must match; nil accepts any
	// JSON value.
	Schema json.RawMessage
}

// New returns an empty graph over S.
func New[S any](cfg Config) *Graph[S] {
	return &Graph[S]{
		cfg:      cfg,
		nodes:    map[string]*node[S]{},
		edges:    map[string][]string{},
		branches: map[string][]branch[S]{},
		reducers: map[string]Reducer{},
	}
}

func (g *Graph[S]) problem(format string, args ...any) {
	g.problems = append(g.problems, fmt.Sprintf(format, args...))
}

func (g *Graph[S]) add(n *node[S]) *Graph[S] {
	switch {
	case n.name == "":
		g.problem("a %s node has an empty name", n.kind)
		return g
	case n.name == START || n.name == END:
		g.problem("node name %q is reserved; pick another", n.name)
		return g
	case g.nodes[n.name] != nil:
		g.problem("node %q is added twice; node names are unique", n.name)
		return g
	}
	g.nodes[n.name] = n
	g.order = append(g.order, n.name)
	return g
}

// Node adds a Go-function node: fn reads a snapshot of the state and
// returns the state it wants; the fields it changed are its writes.
func (g *Graph[S]) Node(name string, fn func(ctx context.Context, s S) (S, error)) *Graph[S] {
	if fn == nil {
		g.problem("node %q has a nil function", name)
		return g
	}
	return g.add(&node[S]{name: name, kind: kindFunc, fn: func(ctx context.Context, _ *agent.Run, s S) (S, error) { return fn(ctx, s) }})
}

// AgentNode adds a node that runs a as a nested run: in maps the state to
// the agent's input (any value [agentrt.EncodeInput] takes), and out maps the
// agent's output back into the state. Under a durable engine the agent's
// run is journaled: when the node runs again (its process died, or the run
// was resumed), an agent run that ended is replayed, not run again. An
// agent that asks ([agent.Ask], as a Coder→Sandbox approval does) makes the
// graph wait with its question; the engine's resume with the answer
// continues the agent where it asked, without repeating its model calls or
// tool runs.
func (g *Graph[S]) AgentNode(name string, a agent.Agent, in func(s S) (any, error), out func(s S, output json.RawMessage) (S, error)) *Graph[S] {
	if a == nil || in == nil || out == nil {
		g.problem("agent node %q needs an agent, an input mapping and an output mapping", name)
		return g
	}
	return g.add(&node[S]{name: name, kind: kindAgent, fn: func(ctx context.Context, r *agent.Run, s S) (S, error) {
		v, err := in(s)
		if err != nil {
			return s, fmt.Errorf("input mapping: %w", err)
		}
		raw, err := agentrt.EncodeInput(v)
		if err != nil {
			return s, fmt.Errorf("input mapping: %w", err)
		}
		end, err := agentrt.Child(ctx, r, a, raw)
		if err != nil {
			return s, err
		}
		return out(s, end.Output)
	}})
}

// Ask adds a human-input node. When it is reached, it asks the question q
// returns through [agent.Ask] (its id is stable: derived from the task's
// run id), and the run ends with an [*agent.InterruptedError] holding it.
// The engine's Resume checks an answer against the question's schema and
// the node passes it to apply as its output.
func (g *Graph[S]) Ask(name string, q func(s S) (Question, error), apply func(s S, answer json.RawMessage) (S, error)) *Graph[S] {
	if q == nil || apply == nil {
		g.problem("ask node %q needs a question function and an apply function", name)
		return g
	}
	return g.add(&node[S]{name: name, kind: kindAsk, ask: q, apply: apply})
}

// Reducer sets how the writes to the JSON field named field combine in a
// step; see [Reducer].
func (g *Graph[S]) Reducer(field string, r Reducer) *Graph[S] {
	if r.apply == nil {
		g.problem("field %q has a zero Reducer; use Replace, Append, Sum, Merge or Custom", field)
		return g
	}
	g.reducers[field] = r
	return g
}

// Edge activates to in the step after from ran. Several edges from one
// node fan out; edges from nodes of one step into one node run it once.
func (g *Graph[S]) Edge(from, to string) *Graph[S] {
	g.edges[from] = append(g.edges[from], to)
	return g
}

// Branch activates the nodes route returns (each one of targets, or END)
// in the step after from ran. route reads the state after from's step.
func (g *Graph[S]) Branch(from string, route func(ctx context.Context, s S) ([]string, error), targets ...string) *Graph[S] {
	if route == nil || len(targets) == 0 {
		g.problem("branch from %q needs a route function and the targets it may return", from)
		return g
	}
	g.branches[from] = append(g.branches[from], branch[S]{route: route, targets: targets})
	return g
}

// Dispatch is a dynamic fan-out (LangGraph's Send): after from ran, fn
// returns one [Send] per task, and each runs its node on its own state in
// the next step. Every Send's node must be one of targets.
func (g *Graph[S]) Dispatch(from string, fn func(ctx context.Context, s S) ([]Send[S], error), targets ...string) *Graph[S] {
	if fn == nil || len(targets) == 0 {
		g.problem("dispatch from %q needs a function and the target nodes", from)
		return g
	}
	g.branches[from] = append(g.branches[from], branch[S]{send: fn, targets: targets})
	return g
}

// Join activates to once every node of from has run since to last ran
// (in one step or over several): the join of a fan-out.
func (g *Graph[S]) Join(to string, from ...string) *Graph[S] {
	if len(from) == 0 {
		g.problem("join into %q has no source nodes", to)
		return g
	}
	g.joins = append(g.joins, join{to: to, from: from})
	return g
}
