package codeexec_test

import (
	"context"
	"fmt"

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
	exec, err := sandbox.NewInProcess() // trusted code; the default is sandbox.NewIsolated
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
	res, err := engine.New().Invoke(context.Background(), ce, "Sum of the squares of 1, 2 and 3?")
	fmt.Println(res.Text(), err)
	// Output: Sandbox said {"result":14,"logs":[]} <nil>
}
