package workflow_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/workflow"
)

func ExampleEngine_Invoke() {
	m := modeltest.New(nil, modeltest.Text("Paris").WithUsage(12, 1))
	geo, _ := agent.NewAI(agent.AIConfig{Name: "geo", Instructions: "Answer with one word."})
	e := workflow.New(workflow.WithModel(m), workflow.WithLimits(agent.Limits{MaxTokens: 10_000}))
	res, err := e.Invoke(context.Background(), geo, "Capital of France?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text(), res.Usage)
	// Output: Paris in=12 out=1 cached=0
}

func ExampleEngine_NewSession() {
	m := modeltest.New(nil, modeltest.Text("Hello, Ada."), modeltest.Func(func(req model.Request) modeltest.Turn {
		// The first turn comes back as real messages.
		return modeltest.Text(fmt.Sprintf("%d earlier messages; first: %q", len(req.Messages)-1, req.Messages[0].Text()))
	}))
	a, _ := agent.NewAI(agent.AIConfig{Name: "chat"})
	mem, _ := workflow.NewWindow(workflow.WindowConfig{MaxTurns: 10, MaxTokens: 4000})
	s := workflow.New(workflow.WithModel(m)).NewSession(a, mem)
	for _, q := range []string{"I am Ada.", "Who am I?"} {
		res, err := s.Invoke(context.Background(), q)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Text())
	}
	// Output:
	// Hello, Ada.
	// 2 earlier messages; first: "I am Ada."
}

func ExampleNewSequence() {
	upper, _ := agent.NewFunc("upper", "Upper-cases the message.", func(_ context.Context, in struct {
		Message string `json:"message"`
	}) (map[string]string, error) {
		return map[string]string{"message": strings.ToUpper(in.Message)}, nil
	})
	exclaim, _ := agent.NewFunc("exclaim", "Adds an exclamation mark.", func(_ context.Context, in struct {
		Message string `json:"message"`
	}) (map[string]string, error) {
		return map[string]string{"message": in.Message + "!"}, nil
	})
	seq, _ := workflow.NewSequence(workflow.SequenceConfig{Name: "shout", Steps: []agent.Agent{upper, exclaim}})
	out, _ := agent.Invoke(context.Background(), seq, "hello")
	fmt.Println(string(out))
	// Output: {"message":"HELLO!"}
}

func ExampleNewParallel() {
	count := func(name string, f func(string) int) agent.Agent {
		a, _ := agent.NewFunc(name, "Counts.", func(_ context.Context, in struct {
			Message string `json:"message"`
		}) (map[string]int, error) {
			return map[string]int{name: f(in.Message)}, nil
		})
		return a
	}
	p, _ := workflow.NewParallel(workflow.ParallelConfig{Name: "stats", MaxConcurrency: 2, Branches: []agent.Agent{
		count("words", func(s string) int { return len(strings.Fields(s)) }),
		count("bytes", func(s string) int { return len(s) }),
	}})
	out, _ := agent.Invoke(context.Background(), p, "to be or not to be")
	fmt.Println(string(out))
	// Output: {"bytes":18,"words":6}
}

func ExampleNewReflect() {
	m := modeltest.New(nil,
		modeltest.Text("roses are red"),                                        // worker
		modeltest.JSON(workflow.Review{Feedback: "capitalise the first word"}), // reviewer
		modeltest.Text("Roses are red"),                                        // worker
		modeltest.JSON(workflow.Review{Approved: true}),                        // reviewer
	)
	verdict, _ := agent.SchemaFor[workflow.Review]()
	poet, _ := agent.NewAI(agent.AIConfig{Name: "poet", Model: m})
	critic, _ := agent.NewAI(agent.AIConfig{Name: "critic", Model: m, OutputSchema: verdict})
	loop, _ := workflow.NewReflect(workflow.ReflectConfig{Name: "poem", Worker: poet, Reviewer: critic, MaxRounds: 3})
	out, err := agent.Invoke(context.Background(), loop, "a line of a poem")
	fmt.Println(string(out), err)
	// Output: {"message":"Roses are red"} <nil>
}

func ExampleNewRoute() {
	m := modeltest.New(nil, modeltest.ToolCalls(modeltest.Call("c1", "weather", `{"message":"Oslo"}`)))
	weather, _ := agent.NewFunc("weather", "Tells the weather.", func(_ context.Context, in struct {
		Message string `json:"message"`
	}) (map[string]string, error) {
		return map[string]string{"message": "Snow, asked: " + in.Message}, nil
	})
	jokes, _ := agent.NewFunc("jokes", "Tells jokes.", func(context.Context, struct{}) (map[string]string, error) {
		return map[string]string{"message": "…"}, nil
	})
	rt, _ := workflow.NewRoute(workflow.RouteConfig{Name: "desk", Model: m, Agents: []agent.Agent{weather, jokes}})
	out, _ := agent.Invoke(context.Background(), rt, "Weather in Oslo tomorrow?")
	fmt.Println(string(out))
	// Output: {"message":"Snow, asked: Weather in Oslo tomorrow?"}
}

func ExampleNewCodeExecution() {
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
	ce, err := workflow.NewCodeExecution(workflow.CodeExecutionConfig{Model: m, Executor: exec})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := workflow.New().Invoke(context.Background(), ce, "Sum of the squares of 1, 2 and 3?")
	fmt.Println(res.Text(), err)
	// Output: Sandbox said {"result":14,"logs":[]} <nil>
}
