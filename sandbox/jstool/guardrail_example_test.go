package jstool_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

// The sandbox's admission as a guardrail on the evaluateJs tool: code
// nested too deeply is refused before any executor sees it, and the model
// reads why as the tool's error.
func ExampleAdmissionGuardrail() {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		panic(err)
	}
	defer exec.Close()
	tool, _ := jstool.New(exec, jstool.Config{})
	admission, _ := jstool.AdmissionGuardrail(sandbox.Limits{Nesting: 8})
	guarded, _ := agent.GuardTool(tool, agent.ToolGuards{Before: []agent.Guardrail{admission}})

	deep := strings.Repeat("[", 10) + strings.Repeat("]", 10)
	m := modeltest.New(nil,
		modeltest.ToolCalls(modeltest.Call("c1", jstool.Name, `{"code":"`+deep+`"}`)),
		modeltest.Text("I will flatten it."),
	)
	coder, _ := agent.NewAI(agent.AIConfig{Name: "coder", Model: m, Tools: []agent.Agent{guarded}})
	for ev, err := range coder.Run(context.Background(), []byte(`{"message":"go"}`)) {
		if err == nil && ev.Kind == agent.EventToolResult {
			fmt.Println(ev.ToolResult.IsError, strings.Contains(string(ev.ToolResult.Content), "nested too deeply"))
		}
	}
	// Output: true true
}
