package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model/modeltest"
)

// An AI agent with a typed Go function as its tool. The scripted model
// stands in for a real one, such as model.Open("openai:gpt-4o-mini").
func Example() {
	m := modeltest.New(nil,
		modeltest.ToolCalls(modeltest.Call("call_1", "add", `{"a":2,"b":3}`)),
		modeltest.Text("2 + 3 = 5"),
	)
	add, _ := agent.NewFunc("add", "Adds two integers.", func(_ context.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return in.A + in.B, nil
	})
	calc, _ := agent.NewAI(agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{add}})
	out, err := agent.Invoke(context.Background(), calc, "What is 2+3?")
	fmt.Println(string(out), err)
	// Output: {"message":"2 + 3 = 5"} <nil>
}

// Streaming a run: the same events Invoke collects.
func ExampleAgent_streaming() {
	m := modeltest.New(nil, modeltest.TextDeltas("Hel", "lo", "!"))
	a, _ := agent.NewAI(agent.AIConfig{Name: "greeter", Model: m})
	for ev, err := range a.Run(context.Background(), []byte(`{"message":"hi"}`)) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch ev.Kind {
		case agent.EventTextDelta:
			fmt.Printf("%q ", ev.Text)
		case agent.EventRunEnd:
			fmt.Printf("=> %s\n", ev.Output)
		}
	}
	// Output: "Hel" "lo" "!" => {"message":"Hello!"}
}

// A typed function agent validates its input against the schema derived
// from its Go type.
func ExampleNewFunc() {
	type in struct {
		Code string `json:"code" jsonschema:"description=JavaScript source"`
	}
	f, _ := agent.NewFunc("lint", "Counts lines.", func(_ context.Context, v in) (int, error) { return len(v.Code), nil })
	_, err := agent.Invoke(context.Background(), f, map[string]any{"code": 42})
	fmt.Println(err)
	// Output: invalid input for lint: code: expected string, got number
}

// Limits bound a whole run tree.
func ExampleWithLimits() {
	m := modeltest.New(nil, modeltest.Text("ok").WithUsage(250, 50), modeltest.Text("never"))
	a, _ := agent.NewAI(agent.AIConfig{Name: "a", Model: m})
	ctx, cancel := agent.WithLimits(context.Background(), agent.Limits{MaxTokens: 200})
	defer cancel()
	_, _ = agent.Invoke(ctx, a, "first")
	_, err := agent.Invoke(ctx, a, "second")
	fmt.Println(err)
	// Output: max tokens exceeded: 300 used, limit 200
}

// An agent describes itself with one Info: what a model sees of it as a
// tool, what traces call it, and whether its run checks its own input.
func ExampleAgent_info() {
	add, _ := agent.NewFunc("add", "Adds two integers.", func(_ context.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return in.A + in.B, nil
	})
	step, _ := agent.New(agent.Info{Name: "echo", Description: "Returns its input."}, func(_ context.Context, r *agent.Run) (json.RawMessage, error) {
		return r.Input, nil
	})
	for _, a := range []agent.Agent{add, step} {
		info := a.Info()
		fmt.Printf("%s (%s): %s Checks its input: %v.\n", info.Name, info.Kind, info.Description, info.ChecksInput)
	}
	// New fills in what its Info left out: any object in, any object out.
	fmt.Println(string(step.Info().InputSchema))
	// Output:
	// add (func): Adds two integers. Checks its input: true.
	// echo (agent): Returns its input. Checks its input: false.
	// {"type":"object","additionalProperties":true}
}
