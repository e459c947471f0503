package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model/modeltest"
)

// Guardrails on an AI agent: the input's size is bounded, API keys in the
// answer are masked before any of it streams to the caller, and a tool's
// arguments are checked before it runs.
func ExampleGuardrail() {
	m := modeltest.New(nil,
		modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":2,"b":-3}`)),
		modeltest.TextDeltas("Use key ", "sk-live-0123456789abcdefghij", " to pay."),
	)
	add, _ := agent.NewFunc("add", "Adds two natural numbers.", func(_ context.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return in.A + in.B, nil
	})
	naturals := agent.Guardrail{Name: "naturals", Check: func(_ context.Context, in agent.GuardInput) (agent.Verdict, error) {
		if strings.Contains(in.Message, "-") {
			return agent.Reject("negative numbers are not allowed"), nil
		}
		return agent.Allow(), nil
	}}
	guardedAdd, _ := agent.GuardTool(add, agent.ToolGuards{Before: []agent.Guardrail{naturals}})
	size, _ := agent.MaxInputSize(1000)
	secrets, _ := agent.DenyList(agent.DenyListConfig{Mask: true})
	a, _ := agent.NewAI(agent.AIConfig{
		Name: "assistant", Model: m, Tools: []agent.Agent{guardedAdd},
		InputGuardrails:  []agent.Guardrail{size},
		OutputGuardrails: []agent.Guardrail{secrets},
		OutputHold:       agent.OutputHold{On: true},
	})
	for ev, err := range a.Run(context.Background(), []byte(`{"message":"pay"}`)) {
		switch {
		case err != nil:
			fmt.Println("error:", err)
		case ev.Kind == agent.EventToolResult:
			fmt.Printf("the model reads: %s\n", ev.ToolResult.Content)
		case ev.Kind == agent.EventTextDelta:
			fmt.Print(ev.Text)
		}
	}
	fmt.Println()

	_, err := agent.Invoke(context.Background(), a, strings.Repeat("x", 2000))
	var tw *agent.TripwireError
	fmt.Println(errors.Is(err, agent.ErrTripwire), errors.As(err, &tw) && tw.Stage == agent.StageInput)
	// Output:
	// the model reads: {"error":"guardrail \"naturals\" refused the arguments of add: negative numbers are not allowed"}
	// Use key sk-l******** to pay.
	// true true
}
