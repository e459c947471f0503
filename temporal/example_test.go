package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	lt "github.com/loomwork/loom/temporal"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// GreeterWorkflow is workflow code: the agent runs on the workflow's
// context, its model call runs as an activity.
func GreeterWorkflow(w workflow.Context, name string) (string, error) {
	a, err := agent.NewAI(agent.AIConfig{
		Name:         "greeter",
		Instructions: "Greet the user.",
		Model:        lt.NewModel("openai:gpt-4o-mini", lt.ActivityOptions{}),
	})
	if err != nil {
		return "", err
	}
	in, _ := agentrt.EncodeInput(name)
	out, err := lt.Run(w, a, in)
	if err != nil {
		return "", err
	}
	var v struct{ Message string }
	err = json.Unmarshal(out, &v)
	return v.Message, err
}

func ExampleRun() {
	// The worker side: each model reference maps to a factory that reads
	// its key on the worker (here a scripted model).
	acts, err := lt.NewActivities(lt.Config{
		Models: map[string]func(context.Context) (model.Model, error){
			"openai:gpt-4o-mini": func(context.Context) (model.Model, error) {
				return modeltest.New(nil, modeltest.Text("Hello, Ada!")), nil
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A test environment stands in for a worker connected to a server.
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	acts.Register(env)
	env.RegisterWorkflow(GreeterWorkflow)
	env.ExecuteWorkflow(GreeterWorkflow, "Ada")
	var out string
	fmt.Println(env.GetWorkflowResult(&out), out)
	// Output: <nil> Hello, Ada!
}
