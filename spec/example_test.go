package spec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
)

// A typo is reported with its place, its path and the nearest valid key,
// before anything runs.
func ExampleParse() {
	dir, _ := os.MkdirTemp("", "loom-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loom.yaml")
	_ = os.WriteFile(path, []byte(`version: loom/v1
agents:
  helper:
    type: ai
    instrutions: Be brief.
    max_turns: ten
`), 0o644)
	_, err := spec.Parse(path)
	var errs spec.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Printf("%d:%d %s: %s (%s)\n", e.Line, e.Col, e.Path, e.Msg, e.Hint)
		}
	}
	// Output:
	// 5:5 agents.helper.instrutions: unknown key "instrutions" (did you mean instructions?)
	// 6:16 agents.helper.max_turns: wrong type: want an integer, got the string "ten" (write a whole number, as 3)
}

// Load builds the declared agents; a function entry runs its JavaScript in
// loom's sandbox.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "loom-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loom.yaml")
	_ = os.WriteFile(path, []byte(`version: loom/v1
entry: area
agents:
  area:
    type: function
    description: The area of a w×h rectangle.
    code: "({area: input.w * input.h})"
`), 0o644)
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exec.Close()
	p, err := spec.Load(path, spec.Registry{Sandbox: exec})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	res, err := engine.New(engine.Config{}).Invoke(context.Background(), p.Entry, map[string]int{"w": 3, "h": 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Output))
	// Output: {"area":12}
}

// A graph entry stops at its human node; the engine's Resume continues it
// with the answer, without running any node again.
func Example_graphResume() {
	dir, _ := os.MkdirTemp("", "loom-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loom.yaml")
	_ = os.WriteFile(path, []byte(`version: loom/v1
entry: order
agents:
  price:
    type: function
    code: "({total: input.qty * 3})"
  order:
    type: graph
    entry: quote
    nodes:
      quote: {agent: price}
      confirm: {human: {kind: approval, prompt: Place the order?, show: [quote]}}
    edges:
      - {from: quote, branch: "state.quote.total > 10 ? 'confirm' : 'end'", targets: [confirm, end]}
      - {from: confirm, to: end}
`), 0o644)
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exec.Close()
	p, err := spec.Load(path, spec.Registry{Sandbox: exec})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	ctx := context.Background()
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})
	var runID string
	var asked *agent.InterruptedError
	for ev, err := range e.Run(ctx, p.Entry, json.RawMessage(`{"qty": 5}`)) {
		if ev.Kind == agent.EventRunStart && runID == "" {
			runID = ev.RunID
		}
		errors.As(err, &asked)
	}
	q := asked.Questions[0]
	fmt.Println(q.Kind, string(q.Payload))
	res, err := e.ResumeInvoke(ctx, p.Entry, runID, map[string]json.RawMessage{q.ID: json.RawMessage(`{"approved": true}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Output))
	// Output:
	// approval {"prompt":"Place the order?","state":{"quote":{"total":15}}}
	// {"confirm":{"approved":true},"qty":5,"quote":{"total":15}}
}
