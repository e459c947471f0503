package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loomwork/loom/internal/flow"
	"go.yaml.in/yaml/v4"
)

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
		case strings.TrimSpace(n.Input) != "":
			if err := checkExpr(strings.TrimSpace(n.Input)); err != nil {
				c.fail(d.pos[join(p, "input")], join(p, "input"), exprHint, "the input expression cannot run: %v", err)
			}
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
		if ed.Branch != "" {
			if err := checkExpr(ed.Branch); err != nil {
				c.fail(d.pos[join(p, "branch")], join(p, "branch"), exprHint, "the branch expression cannot run: %v", err)
			}
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
	from := flow.Reachable(GraphStart, next)
	to := flow.Reachable(GraphEnd, prev)
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

// exprHint says what an expression of a graph is.
const exprHint = "an expression is JavaScript whose value is used, over the constant state, e.g. state.score > 0.5 ? \"publish\" : \"revise\""

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
