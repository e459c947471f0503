package graph

import (
	"encoding/json"
	"fmt"
	"maps"

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
	// Runs counts the runs of each node in the steps completed, since the
	// run started: a resumed, forked or killed-and-continued run reads it
	// back with the rest, so the step limit's report covers every process.
	// It grows with the graph's nodes, not with its steps.
	Runs map[string]int `json:"runs,omitempty"`
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

// countRuns returns runs plus one run of the node of each task.
func countRuns(runs map[string]int, tasks []task) map[string]int {
	out := make(map[string]int, len(runs)+len(tasks))
	maps.Copy(out, runs)
	for _, t := range tasks {
		out[t.Node]++
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
