package codeexec_test

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

func ExampleNew() {
	// The model writes a snippet, then answers with the value the sandbox
	// returned.
	m := modeltest.New(nil,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"[1, 2, 3].map(x => x * x).reduce((a, b) => a + b)"}`)),
		modeltest.Func(func(req model.Request) modeltest.Turn {
			res := req.Messages[len(req.Messages)-1].ToolResults()[0]
			return modeltest.Text("Sandbox said " + string(res.Content))
		}),
	)
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{}) // trusted code; the default is sandbox.NewIsolated
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exec.Close()
	ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: exec})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := engine.New(engine.Config{}).Invoke(context.Background(), ce, "Sum of the squares of 1, 2 and 3?")
	fmt.Println(res.Text(), err)
	// Output: Sandbox said {"result":14,"logs":[]} <nil>
}

// In code mode, a snippet calls the tools of SandboxTools as functions and
// combines their results in one run.
func ExampleConfig_sandboxTools() {
	type pair struct{ A, B float64 }
	add, err := agent.NewFunc("add", "Adds A and B.", func(_ context.Context, in pair) (float64, error) { return in.A + in.B, nil })
	if err != nil {
		fmt.Println(err)
		return
	}
	mul, err := agent.NewFunc("multiply", "Multiplies A by B.", func(_ context.Context, in pair) (float64, error) { return in.A * in.B, nil })
	if err != nil {
		fmt.Println(err)
		return
	}
	m := modeltest.New(nil,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"const s = await tools.add({A: 2, B: 40}); await tools.multiply({A: s, B: 3})"}`)),
		modeltest.Func(func(req model.Request) modeltest.Turn {
			res := req.Messages[len(req.Messages)-1].ToolResults()[0]
			return modeltest.Text("Sandbox said " + string(res.Content))
		}),
	)
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exec.Close()
	tools := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{add, mul}, nil })
	ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: exec, SandboxTools: []agent.Toolset{tools}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := engine.New(engine.Config{}).Invoke(context.Background(), ce, "(2 + 40) × 3?")
	fmt.Println(res.Text(), err)
	// Output: Sandbox said {"result":126,"logs":[]} <nil>
}
