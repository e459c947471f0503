package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v4"
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
// Each step is checkpointed ([Registry].Checkpoints); a human node stops
// the run with a question, and [Resumable.ResumeRun] continues it from the
// checkpoint without running any node again.
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

// checkGraph checks a graph entry on its own: node and edge names, one
// kind a node and a way an edge, what starts it, and that every node is
// reachable from start and leads to end. The agents its nodes name are
// checked with every other reference, by [Check].
func (d *Doc) checkGraph(c *checker, e *Entry, g *Graph) {
	at := join("agents", e.Name)
	nodesAt := join(at, "nodes")
	if n := d.pos[nodesAt]; n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			g.order = append(g.order, n.Content[i].Value)
		}
	}
	keyPos := func(path, key string) *yaml.Node {
		n := d.pos[path]
		if n == nil {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i]
			}
		}
		return n
	}
	for _, lim := range []struct {
		key string
		v   int
	}{{"max_steps", g.MaxSteps}, {"max_parallel", g.MaxParallel}} {
		if lim.v < 0 {
			c.fail(d.pos[join(at, lim.key)], join(at, lim.key), "leave it out for the default, or give a positive bound", "%s is %d", lim.key, lim.v)
		}
	}
	isNode := func(name string) bool { _, ok := g.Nodes[name]; return ok }
	names := append(slices.Clone(g.order), GraphStart, GraphEnd)
	unknown := func(path, name, role string) {
		c.fail(d.pos[path], path, joinHint(didYouMean(name, names), "declare it under nodes"), "%s %q is not a node of the graph", role, name)
	}
	for _, name := range g.order {
		n, p := g.Nodes[name], join(nodesAt, name)
		switch {
		case name == GraphStart || name == GraphEnd:
			c.fail(keyPos(nodesAt, name), p, "start and end name the graph's ends; pick another name", "node name %q is reserved", name)
		case !validName(name):
			c.fail(keyPos(nodesAt, name), p, "use letters, digits, '_' or '-', starting with a letter or '_'", "node name %q is not a valid name", name)
		}
		switch {
		case n.Agent == "" && n.Human == nil:
			c.fail(d.pos[p], p, "give agent (the agent it runs) or human (what it asks a person)", "a node needs agent or human")
		case n.Agent != "" && n.Human != nil:
			c.fail(d.pos[join(p, "human")], join(p, "human"), "keep one of them", "both agent and human are given")
		case n.Human != nil && n.Input != "":
			c.fail(d.pos[join(p, "input")], join(p, "input"), "a human node shows state keys: list them in human.show", "input is for agent nodes")
		}
		if h := n.Human; h != nil {
			hp := join(p, "human")
			if h.Kind == "approval" && h.AnswerSchema != nil {
				c.fail(d.pos[join(hp, "answer_schema")], join(hp, "answer_schema"), "drop it, or use kind: input", `an approval is answered {"approved": bool, "reason": string}`)
			}
			if h.AnswerSchema != nil {
				raw, err := d.schemaJSON(h.AnswerSchema)
				if err != nil {
					c.fail(d.pos[join(hp, "answer_schema")], join(hp, "answer_schema"), "", "%v", err)
				} else {
					h.AnswerSchema.JSON = raw
				}
			}
		}
	}
	if g.Entry != "" && !isNode(g.Entry) {
		unknown(join(at, "entry"), g.Entry, "entry")
	}
	for i, f := range g.Finish {
		if !isNode(f) {
			unknown(fmt.Sprintf("%s[%d]", join(at, "finish"), i), f, "finish")
		}
	}
	before := len(c.errs)
	starts := g.Entry != ""
	for i, ed := range g.Edges {
		p := fmt.Sprintf("%s[%d]", join(at, "edges"), i)
		if ed.From == GraphStart {
			starts = true
		} else if !isNode(ed.From) {
			unknown(join(p, "from"), ed.From, "edge from")
		}
		ways := 0
		for _, s := range []string{ed.To, ed.Branch, ed.Func} {
			if s != "" {
				ways++
			}
		}
		switch {
		case ways == 0:
			c.fail(d.pos[p], p, "give to (the next node), branch (an expression) or func (a registered Go function)", "an edge needs to, branch or func")
		case ways > 1:
			c.fail(d.pos[p], p, "keep one of them", "an edge has one of to, branch and func")
		case ed.To != "" && len(ed.Targets) > 0:
			c.fail(d.pos[join(p, "targets")], join(p, "targets"), "targets list where a branch may go; drop them, or use branch", "targets with to")
		case ed.To == "" && len(ed.Targets) == 0:
			c.fail(d.pos[p], p, "list every node the branch may pick in targets", "a branch needs its targets")
		}
		if ed.To != "" && ed.To != GraphEnd && !isNode(ed.To) {
			unknown(join(p, "to"), ed.To, "edge to")
		}
		for j, t := range ed.Targets {
			if t != GraphEnd && !isNode(t) {
				unknown(fmt.Sprintf("%s[%d]", join(p, "targets"), j), t, "branch target")
			}
		}
	}
	if !starts && len(g.order) > 0 {
		c.fail(d.pos[at], at, fmt.Sprintf("set entry: %s, or add an edge from start", g.order[0]), "nothing starts the graph")
		return
	}
	if len(c.errs) > before {
		// A broken edge would make the paths below wrong too.
		return
	}
	next, prev := map[string][]string{}, map[string][]string{}
	for _, l := range g.Links() {
		next[l.From] = append(next[l.From], l.To)
		prev[l.To] = append(prev[l.To], l.From)
	}
	from := reach(GraphStart, next)
	to := reach(GraphEnd, prev)
	for _, name := range g.order {
		p := join(nodesAt, name)
		switch {
		case !from[name]:
			c.fail(keyPos(nodesAt, name), p, "add an edge into it, or remove it", "node %q is unreachable from start", name)
		case !to[name]:
			c.fail(keyPos(nodesAt, name), p, "add it to finish, or an edge from it to end", "node %q never leads to end", name)
		}
	}
}

// reach returns every name reachable from start through next.
func reach(start string, next map[string][]string) map[string]bool {
	seen := map[string]bool{start: true}
	stack := []string{start}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, m := range next[n] {
			if !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	return seen
}

// graphRefs returns the agents a graph's nodes name, in file order.
func (g *Graph) graphRefs(at string) []ref {
	var out []ref
	for _, name := range g.order {
		if a := g.Nodes[name].Agent; a != "" {
			out = append(out, ref{join(join(join(at, "nodes"), name), "agent"), a})
		}
	}
	return out
}

// funcRefs returns the Go functions a graph's edges name.
func (g *Graph) funcRefs(at string) []ref {
	var out []ref
	for i, ed := range g.Edges {
		if ed.Func != "" {
			out = append(out, ref{fmt.Sprintf("%s[%d].func", join(at, "edges"), i), ed.Func})
		}
	}
	return out
}

// hasExpressions reports whether the graph runs any JavaScript.
func (g *Graph) hasExpressions() bool {
	for _, n := range g.Nodes {
		if strings.TrimSpace(n.Input) != "" {
			return true
		}
	}
	for _, e := range g.Edges {
		if e.Branch != "" {
			return true
		}
	}
	return false
}
