package graph

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/flow"
)

// Compiled is a checked graph, ready to run. It is an [agent.Agent]: its
// input is a JSON object of state fields, its output the final state, so
// it nests in sequences, tools, sessions, servers and other graphs.
type Compiled[S any] struct {
	name, desc string
	nodes      map[string]*node[S]
	order      []string
	edges      map[string][]string
	branches   map[string][]branch[S]
	joins      []join
	reducers   map[string]Reducer
	fields     []string
	maxSteps   int
	maxPar     int
	schema     json.RawMessage
}

var toolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// Compile checks the graph and returns its runnable form. The error is a
// [*CompileError] listing every problem: bad or duplicate names, edges to
// unknown nodes, nodes no path reaches from START, nodes with no path to
// END, reducers of fields S does not have, negative limits.
func (g *Graph[S]) Compile() (*Compiled[S], error) {
	name := g.cfg.Name
	if name == "" {
		name = "graph"
	}
	e := &CompileError{Graph: name, Problems: slices.Clone(g.problems)}
	bad := func(format string, args ...any) { e.Problems = append(e.Problems, fmt.Sprintf(format, args...)) }
	if !toolName.MatchString(name) {
		bad("name %q is not a valid tool name (letters, digits, '_' or '-', starting with a letter or '_')", name)
	}
	if g.cfg.MaxSteps < 0 {
		bad("MaxSteps is %d; use 0 for the default (%d) or a positive bound", g.cfg.MaxSteps, DefaultMaxSteps)
	}
	if g.cfg.MaxParallel < 0 {
		bad("MaxParallel is %d; use 0 for the default (%d) or a positive bound", g.cfg.MaxParallel, DefaultMaxParallel)
	}
	fieldNames, err := jsonFields(reflect.TypeFor[S]())
	if err != nil {
		bad("%v", err)
	}
	for _, f := range slices.Sorted(maps.Keys(g.reducers)) {
		if err == nil && !slices.Contains(fieldNames, f) {
			bad("reducer for field %q, but the state %s has no such JSON field (fields: %v)", f, reflect.TypeFor[S](), fieldNames)
		}
	}
	isNode := func(n string) bool { return g.nodes[n] != nil }
	// succ is every node a node may activate, for the reachability checks.
	succ := map[string][]string{}
	for _, from := range slices.Sorted(maps.Keys(g.edges)) {
		if from != START && !isNode(from) {
			bad("edge from unknown node %q; add the node or remove the edge", from)
		}
		for _, to := range g.edges[from] {
			if to != END && !isNode(to) {
				bad("edge %q -> %q goes to an unknown node", from, to)
			}
			succ[from] = append(succ[from], to)
		}
	}
	for _, from := range slices.Sorted(maps.Keys(g.branches)) {
		if from != START && !isNode(from) {
			bad("branch from unknown node %q", from)
		}
		for _, b := range g.branches[from] {
			for _, to := range b.targets {
				if to != END && !isNode(to) || (b.send != nil && to == END) {
					bad("branch from %q names unknown target %q", from, to)
				}
				succ[from] = append(succ[from], to)
			}
		}
	}
	for _, j := range g.joins {
		if !isNode(j.to) {
			bad("join into unknown node %q", j.to)
		}
		for _, f := range j.from {
			if !isNode(f) {
				bad("join into %q from unknown node %q", j.to, f)
			}
			succ[f] = append(succ[f], j.to)
		}
	}
	if len(succ[START]) == 0 {
		bad("nothing starts the graph; add Edge(graph.START, %q) or a Branch from graph.START", firstOr(g.order))
	}
	reach := flow.Reachable(START, succ)
	pred := map[string][]string{}
	for from, tos := range succ {
		for _, to := range tos {
			pred[to] = append(pred[to], from)
		}
	}
	ends := flow.Reachable(END, pred)
	for _, n := range g.order {
		if !reach[n] {
			bad("node %q is unreachable from graph.START; add an edge into it or remove it", n)
		}
		if !ends[n] {
			bad("node %q has no path to graph.END; add Edge(%q, graph.END) or a branch out of it", n, n)
		}
	}
	if len(e.Problems) > 0 {
		return nil, e
	}
	schema, err := agent.SchemaFor[S]()
	if err != nil {
		return nil, &CompileError{Graph: name, Problems: []string{fmt.Sprintf("state schema: %v", err)}}
	}
	c := &Compiled[S]{
		name: name, desc: g.cfg.Description,
		nodes: maps.Clone(g.nodes), order: slices.Clone(g.order),
		edges: maps.Clone(g.edges), branches: maps.Clone(g.branches), joins: slices.Clone(g.joins),
		reducers: maps.Clone(g.reducers), fields: fieldNames,
		maxSteps: g.cfg.MaxSteps, maxPar: g.cfg.MaxParallel, schema: schema,
	}
	if c.maxSteps == 0 {
		c.maxSteps = DefaultMaxSteps
	}
	if c.maxPar == 0 {
		c.maxPar = DefaultMaxParallel
	}
	return c, nil
}

func firstOr(ss []string) string {
	if len(ss) == 0 {
		return "node"
	}
	return ss[0]
}

// Info returns the graph's name and description, the kind "graph" (as
// traces show it), and the schema of S as both schemas: a run's input is
// an object of state fields, its output the final state.
func (c *Compiled[S]) Info() agent.Info {
	return agent.Info{Name: c.name, Description: c.desc, Kind: "graph", InputSchema: c.schema, OutputSchema: c.schema}
}
