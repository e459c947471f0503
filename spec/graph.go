package spec

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/invopop/jsonschema"
)

// The reserved node names of a graph entry: where it starts and where it
// ends.
const (
	GraphStart = "start"
	GraphEnd   = "end"
)

// Graph declares a graph (package graph): nodes that run agents or ask a
// person, and the edges between them. Its state is a JSON object: the
// run's input object, to which each node writes its output under its
// output key. Branches are JavaScript expressions over the state, run in
// loom's sandbox, or Go functions the registry names ([Registry].Branches).
// Each step is a nested run, checkpointed by the engine that runs the
// graph (engine.Config.Checkpoints); a human node stops the run with a
// question, and the engine's resume of the run continues it without
// running any node that ended again.
type Graph struct {
	Type        string `yaml:"type" json:"type"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Nodes are the graph's nodes by name.
	Nodes map[string]GraphNode `yaml:"nodes" json:"nodes"`
	// Entry is the node that runs first: an edge from start.
	Entry string `yaml:"entry,omitempty" json:"entry,omitempty"`
	// Finish are the nodes after which the graph ends: edges to end.
	Finish []string `yaml:"finish,omitempty" json:"finish,omitempty"`
	// Edges connect the nodes; start and end name the graph's ends.
	Edges []GraphEdge `yaml:"edges,omitempty" json:"edges,omitempty"`
	// MaxSteps bounds the steps of one run (graph.DefaultMaxSteps by
	// default); MaxParallel how many nodes of a step run at once.
	MaxSteps    int `yaml:"max_steps,omitempty" json:"max_steps,omitempty" jsonschema:"minimum=0"`
	MaxParallel int `yaml:"max_parallel,omitempty" json:"max_parallel,omitempty" jsonschema:"minimum=0"`
	// Sandbox runs the branch and input expressions.
	Sandbox Sandbox `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`

	// order is the nodes' names in file order.
	order []string
}

// JSONSchemaExtend names the nodes like agents.
func (Graph) JSONSchemaExtend(s *jsonschema.Schema) {
	if n, ok := s.Properties.Get("nodes"); ok {
		n.PropertyNames = &jsonschema.Schema{Pattern: `^[a-zA-Z_][a-zA-Z0-9_-]*$`, Not: &jsonschema.Schema{Enum: []any{GraphStart, GraphEnd}}}
		n.MinProperties = ptr(uint64(1))
	}
}

// GraphNode is one node: it runs an agent, or asks a person.
type GraphNode struct {
	// Agent names a declared agent or a registered tool or function.
	Agent string `yaml:"agent,omitempty" json:"agent,omitempty"`
	// Input is a JavaScript expression over state whose value is the
	// agent's input; by default the agent gets the whole state.
	Input string `yaml:"input,omitempty" json:"input,omitempty"`
	// Output is the state key the node's output (the agent's, or the
	// person's answer) is written to; by default the node's name.
	Output string `yaml:"output,omitempty" json:"output,omitempty"`
	// Human makes the node ask a person instead.
	Human *Human `yaml:"human,omitempty" json:"human,omitempty"`
}

// JSONSchemaExtend requires exactly one of agent and human.
func (GraphNode) JSONSchemaExtend(s *jsonschema.Schema) {
	s.OneOf = []*jsonschema.Schema{{Required: []string{"agent"}}, {Required: []string{"human"}}}
}

// Human is what a human node asks: the run stops with a question of its
// kind, and the answer becomes the node's output.
type Human struct {
	// Kind is input (any answer, or one matching answer_schema) or
	// approval (answered {"approved": bool, "reason": string}).
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty" jsonschema:"enum=input,enum=approval"`
	// Prompt is what the person is asked.
	Prompt string `yaml:"prompt" json:"prompt"`
	// Show are the state keys shown with the prompt.
	Show []string `yaml:"show,omitempty" json:"show,omitempty"`
	// AnswerSchema is the JSON Schema an input answer must match, inline
	// or as a file.
	AnswerSchema *SchemaRef `yaml:"answer_schema,omitempty" json:"answer_schema,omitempty"`
}

// GraphEdge leads from a node to the next: always (to), or to the nodes a
// branch picks among its targets. A branch is a JavaScript expression over
// state that returns a node's name (or a list of names, or "end"), or the
// name of a Go function in [Registry].Branches.
type GraphEdge struct {
	From    string   `yaml:"from" json:"from"`
	To      string   `yaml:"to,omitempty" json:"to,omitempty"`
	Branch  string   `yaml:"branch,omitempty" json:"branch,omitempty"`
	Func    string   `yaml:"func,omitempty" json:"func,omitempty"`
	Targets []string `yaml:"targets,omitempty" json:"targets,omitempty" jsonschema:"minItems=1"`
}

// JSONSchemaExtend requires exactly one of to, branch and func, and
// targets with a branch or func.
func (GraphEdge) JSONSchemaExtend(s *jsonschema.Schema) {
	s.OneOf = []*jsonschema.Schema{
		{Required: []string{"to"}, Not: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Required: []string{"branch"}}, {Required: []string{"func"}}, {Required: []string{"targets"}}}}},
		{Required: []string{"branch", "targets"}, Not: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Required: []string{"to"}}, {Required: []string{"func"}}}}},
		{Required: []string{"func", "targets"}, Not: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Required: []string{"to"}}, {Required: []string{"branch"}}}}},
	}
}

// BranchFunc picks the nodes that run next from a graph's state (its keys
// and their JSON values); each must be one of the edge's targets, or end.
type BranchFunc func(ctx context.Context, state map[string]json.RawMessage) ([]string, error)

// NodeNames returns the graph's node names in file order.
func (g *Graph) NodeNames() []string { return slices.Clone(g.order) }

// Link is one way a graph may go from a node to the next: an edge, a
// branch's target, the entry (from start) or a finish (to end).
type Link struct {
	From, To string
	// Branch is set on a branch's targets: its expression, or its Go
	// function's name followed by "()".
	Branch string
}

// Links returns every way the graph may go, each once: the graph as drawn.
func (g *Graph) Links() []Link {
	var out []Link
	add := func(l Link) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if g.Entry != "" {
		add(Link{From: GraphStart, To: g.Entry})
	}
	for _, e := range g.Edges {
		if e.To != "" {
			add(Link{From: e.From, To: e.To})
		}
		branch := e.Branch
		if e.Func != "" {
			branch = e.Func + "()"
		}
		for _, t := range e.Targets {
			add(Link{From: e.From, To: t, Branch: branch})
		}
	}
	for _, f := range g.Finish {
		add(Link{From: f, To: GraphEnd})
	}
	return out
}
