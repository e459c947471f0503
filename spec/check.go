package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ref is one name an entry uses: where it is written and what it names.
type ref struct {
	path, name string
}

// refs returns the names e uses, in file order.
func (e *Entry) refs() []ref {
	at := join("agents", e.Name)
	var out []ref
	one := func(key, name string) {
		if name != "" {
			out = append(out, ref{join(at, key), name})
		}
	}
	list := func(key string, names []string) {
		for i, n := range names {
			out = append(out, ref{fmt.Sprintf("%s[%d]", join(at, key), i), n})
		}
	}
	switch c := e.Config.(type) {
	case *AI:
		list("tools", c.Tools)
		out = append(out, c.Guardrails.refs(at)...)
	case *CodeExecution:
		list("tools", c.Tools)
		list("sandbox_tools", c.SandboxTools)
		one("reviewer", c.Reviewer)
		one("error_handler", c.ErrorHandler)
	case *Sequence:
		list("steps", c.Steps)
	case *Parallel:
		list("branches", c.Branches)
	case *Map:
		one("agent", c.Agent)
	case *Reflect:
		one("worker", c.Worker)
		one("reviewer", c.Reviewer)
	case *Route:
		list("agents", c.Agents)
	case *Coordinator:
		one("planner", c.Planner)
		one("coder", c.Coder)
		one("reviewer", c.Reviewer)
		one("executor", c.Executor)
		one("error_handler", c.ErrorHandler)
		one("arbiter", c.Arbiter)
		one("synthesizer", c.Synthesizer)
	case *Graph:
		out = c.graphRefs(at)
	}
	return out
}

// Check checks what [Parse] cannot check alone: that every name an entry
// uses (tools, steps, branches, route targets, roles, the entry) is a
// declared agent or in reg, and that declared agents do not use each other
// in a cycle. It returns [Errors] listing every problem.
func Check(d *Doc, reg Registry) error {
	var errs Errors
	if d.broken == nil {
		d.broken = map[string]bool{}
	}
	// breakAt marks the entry a path is in as broken, so Build passes
	// over it.
	breakAt := func(path string) {
		if rest, ok := strings.CutPrefix(path, "agents."); ok {
			for _, e := range d.Agents {
				if rest == e.Name || strings.HasPrefix(rest, e.Name+".") || strings.HasPrefix(rest, e.Name+"[") {
					d.broken[e.Name] = true
				}
			}
		}
	}
	fail := func(path, hint, format string, args ...any) {
		breakAt(path)
		if hint == "" {
			hint = schemaHint
		}
		e := &Error{File: d.Path, Path: path, Msg: fmt.Sprintf(format, args...), Hint: hint}
		if n := d.pos[path]; n != nil {
			e.Line, e.Col = n.Line, n.Column
		}
		errs = append(errs, e)
	}
	known := d.names(reg)
	resolve := func(r ref) {
		if d.Entry(r.name) == nil && reg.lookup(r.name) == nil {
			fail(r.path, joinHint(didYouMean(r.name, known), "declare it under agents, or register it in Go"), "unknown agent or tool %q", r.name)
		}
	}
	if d.File.Entry != "" {
		resolve(ref{"entry", d.File.Entry})
	}
	for _, e := range d.Agents {
		for _, r := range e.refs() {
			resolve(r)
			if t := d.Entry(r.name); t != nil && t.Type == "mcp" && !isToolsRef(r.path) {
				fail(r.path, "name it in the tools of an ai or code_execution entry", "%q is an mcp entry, a set of tools, not an agent", r.name)
			}
		}
	}
	if t := d.Entry(d.File.Entry); t != nil && t.Type == "mcp" {
		fail("entry", "the entry is an agent: an ai entry with the server in its tools, say", "%q is an mcp entry, a set of tools, not an agent", t.Name)
	}
	stores := slices.Sorted(maps.Keys(reg.Stores))
	for _, e := range d.Agents {
		if r, ok := e.Config.(*Retriever); ok && reg.Stores[r.Store] == nil {
			path := join(join("agents", e.Name), "store")
			fail(path, joinHint(didYouMean(r.Store, stores), "register it in Go, in spec.Registry.Stores"), "unknown vector store %q", r.Store)
		}
	}
	branches := slices.Sorted(maps.Keys(reg.Branches))
	for _, e := range d.Agents {
		if g, ok := e.Config.(*Graph); ok {
			for _, r := range g.funcRefs(join("agents", e.Name)) {
				if reg.Branches[r.name] == nil {
					fail(r.path, joinHint(didYouMean(r.name, branches), "register it in Go, in spec.Registry.Branches"), "unknown branch function %q", r.name)
				}
			}
		}
	}
	for _, cyc := range d.cycles() {
		for _, n := range cyc.names {
			d.broken[n] = true
		}
		fail(cyc.at.path, "an agent cannot use itself, directly or through others", "reference cycle: %s", strings.Join(cyc.names, " -> "))
	}
	return errs.err()
}

// isToolsRef reports whether path is an item of a tools or sandbox_tools
// list, where a toolset may be named.
func isToolsRef(path string) bool {
	last := path[strings.LastIndex(path, ".")+1:]
	return strings.HasPrefix(last, "tools[") || strings.HasPrefix(last, "sandbox_tools[")
}

// names returns every name a reference may use.
func (d *Doc) names(reg Registry) []string {
	var out []string
	for _, e := range d.Agents {
		out = append(out, e.Name)
	}
	out = append(out, reg.names()...)
	slices.Sort(out)
	return slices.Compact(out)
}

type cycle struct {
	names []string
	at    ref
}

// cycles finds each cycle among declared agents once, reported at the
// reference that closes it.
func (d *Doc) cycles() []cycle {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var out []cycle
	var visit func(e *Entry)
	visit = func(e *Entry) {
		color[e.Name] = grey
		stack = append(stack, e.Name)
		for _, r := range e.refs() {
			next := d.Entry(r.name)
			if next == nil {
				continue
			}
			switch color[next.Name] {
			case white:
				visit(next)
			case grey:
				i := slices.Index(stack, next.Name)
				names := append(slices.Clone(stack[i:]), next.Name)
				out = append(out, cycle{names: names, at: r})
			}
		}
		stack = stack[:len(stack)-1]
		color[e.Name] = black
	}
	for _, e := range d.Agents {
		if color[e.Name] == white {
			visit(e)
		}
	}
	return out
}

// Uses returns the names the entry refers to (tools, steps, branches,
// targets, roles), in file order: its children in the composition tree.
func (e *Entry) Uses() []string {
	rs := e.refs()
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.name
	}
	return out
}
