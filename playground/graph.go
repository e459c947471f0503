package playground

import "github.com/loomwork/loom/spec"

// graphView is a graph entry as the graph view draws it: its nodes in file
// order, then its edges, from what the loader read.
type graphView struct {
	Nodes []nodeView `json:"nodes"`
	Edges []edgeView `json:"edges"`
}

type nodeView struct {
	Name string `json:"name"`
	// Kind is agent or human; Agent the agent an agent node runs.
	Kind  string `json:"kind"`
	Agent string `json:"agent,omitempty"`
}

type edgeView struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Branch is set on the targets of a branch: its expression or Go
	// function's name.
	Branch string `json:"branch,omitempty"`
}

// graphOf returns the drawing of a graph entry, or nil for other entries.
func graphOf(e *spec.Entry) *graphView {
	g, ok := e.Config.(*spec.Graph)
	if !ok {
		return nil
	}
	v := &graphView{Nodes: []nodeView{}, Edges: []edgeView{}}
	for _, n := range g.NodeNames() {
		node := g.Nodes[n]
		nv := nodeView{Name: n, Kind: "agent", Agent: node.Agent}
		if node.Human != nil {
			nv.Kind, nv.Agent = "human", ""
		}
		v.Nodes = append(v.Nodes, nv)
	}
	for _, l := range g.Links() {
		v.Edges = append(v.Edges, edgeView{From: l.From, To: l.To, Branch: l.Branch})
	}
	return v
}
