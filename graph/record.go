package graph

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/loomwork/loom/agent"
)

// progress is where a run stands between two steps: what a step's run
// outputs, so that a run resumed by an engine reads it back from the
// step's recorded end instead of running the step again. It holds the
// state and the next tasks only, never the path taken, so a step's record
// does not grow with the steps before it.
type progress struct {
	Step  int                 `json:"step"` // super-steps completed
	State fields              `json:"state"`
	Next  []task              `json:"next,omitempty"`
	Joins map[string][]string `json:"joins,omitempty"`
	// Ran marks the nodes that ran in the steps completed since the run
	// started, a bit for each in the order the graph added them, and Again
	// counts the runs of those that ran more than once. A resumed, forked
	// or killed-and-continued run reads them back with the rest, so the
	// step limit's report covers every process; they grow with the graph's
	// nodes (a bit each), not with its steps.
	Ran   []byte         `json:"ran,omitempty"`
	Again map[string]int `json:"again,omitempty"`
}

// task is one node activation of a step.
type task struct {
	ID    string `json:"id"` // the node's name, with "#i" for the i-th Send
	Node  string `json:"node"`
	State fields `json:"state,omitempty"` // a Send's own state
}

// readProgress decodes a step's output.
func readProgress(graphName string, out json.RawMessage) (*progress, error) {
	var p progress
	if err := json.Unmarshal(out, &p); err != nil || p.State == nil {
		return nil, fmt.Errorf("%w: graph %s: a step's recorded output is not the graph's progress (%.100s); resume the run with the graph it started with", agent.ErrInvalidConfig, graphName, out)
	}
	return &p, nil
}

// ranAfter sets next's Ran and Again to p's plus one run of the node of
// each of p's tasks; order lists the graph's nodes.
func ranAfter(next, p *progress, order []string) {
	next.Ran = slices.Clone(p.Ran)
	next.Again = maps.Clone(p.Again)
	for _, t := range p.Next {
		i := slices.Index(order, t.Node)
		if i < 0 {
			continue
		}
		if len(next.Ran) <= i/8 {
			next.Ran = append(next.Ran, make([]byte, i/8+1-len(next.Ran))...)
		}
		if next.Ran[i/8]&(1<<(i%8)) == 0 {
			next.Ran[i/8] |= 1 << (i % 8)
			continue
		}
		if next.Again == nil {
			next.Again = map[string]int{}
		}
		next.Again[t.Node] = max(next.Again[t.Node], 1) + 1
	}
}

// runs returns how many times each node ran in p's steps.
func (p *progress) runs(order []string) map[string]int {
	out := map[string]int{}
	for i, n := range order {
		if i/8 < len(p.Ran) && p.Ran[i/8]&(1<<(i%8)) != 0 {
			out[n] = max(p.Again[n], 1)
		}
	}
	return out
}

// cloneJoins copies a join table.
func cloneJoins(j map[string][]string) map[string][]string {
	if j == nil {
		return nil
	}
	out := make(map[string][]string, len(j))
	for k, v := range j {
		out[k] = append([]string(nil), v...)
	}
	return out
}
