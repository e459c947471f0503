package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/sandbox"
)

// Host tools are offered to the code as async functions of the global
// tools; a failing call rejects with an Error the code can catch.
func ExampleInProcess_RunWithTools() {
	box, err := sandbox.NewToolbox([]sandbox.HostTool{{
		Name:        "get-sum",
		Description: "Adds two numbers.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		Call: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ A, B float64 }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return json.Marshal(map[string]float64{"sum": in.A + in.B})
		},
	}}, sandbox.CallLimits{MaxCalls: 4})
	if err != nil {
		panic(err)
	}
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		panic(err)
	}
	defer exec.Close()
	res, err := exec.RunWithTools(context.Background(), `
const r = await tools.get_sum({a: 2, b: 40});
let bad;
try { await tools.get_sum({a: "two"}) } catch (e) { bad = e.name }
({sum: r.sum, bad})`, box)
	fmt.Println(string(res.Value), err)
	// Output: {"sum":42,"bad":"TypeError"} <nil>
}
