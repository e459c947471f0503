package graph

import (
	"fmt"
	"strconv"
	"strings"
)

// Mermaid returns the graph as a Mermaid flowchart: plain edges as arrows,
// branch targets as dotted arrows, dispatch (Send) targets as dotted
// arrows labelled "send", joins as thick arrows labelled "join", and
// human-input and sub-graph nodes in their own shapes.
func (c *Compiled[S]) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	// Node ids are positions, so that any node name is a valid Mermaid id;
	// the name is the label.
	ids := map[string]string{START: "__start__", END: "__end__"}
	for i, n := range c.order {
		ids[n] = "n" + strconv.Itoa(i)
	}
	id := func(n string) string { return ids[n] }
	b.WriteString("  __start__([start])\n")
	for _, n := range c.order {
		label := `"` + strings.ReplaceAll(n, `"`, "#quot;") + `"`
		switch c.nodes[n].kind {
		case kindAsk:
			fmt.Fprintf(&b, "  %s{{%s}}\n", id(n), label)
		case kindGraph:
			fmt.Fprintf(&b, "  %s[[%s]]\n", id(n), label)
		default:
			fmt.Fprintf(&b, "  %s[%s]\n", id(n), label)
		}
	}
	b.WriteString("  __end__([end])\n")
	froms := append([]string{START}, c.order...)
	for _, from := range froms {
		for _, to := range c.edges[from] {
			fmt.Fprintf(&b, "  %s --> %s\n", id(from), id(to))
		}
		for _, br := range c.branches[from] {
			for _, to := range br.targets {
				if br.send != nil {
					fmt.Fprintf(&b, "  %s -. send .-> %s\n", id(from), id(to))
				} else {
					fmt.Fprintf(&b, "  %s -.-> %s\n", id(from), id(to))
				}
			}
		}
	}
	for _, j := range c.joins {
		for _, f := range j.from {
			fmt.Fprintf(&b, "  %s == join ==> %s\n", id(f), id(j.to))
		}
	}
	return b.String()
}
