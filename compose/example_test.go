package compose_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/model/modeltest"
)

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
	seq, _ := compose.NewSequence(compose.SequenceConfig{Name: "shout", Steps: []agent.Agent{upper, exclaim}})
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
	p, _ := compose.NewParallel(compose.ParallelConfig{Name: "stats", MaxConcurrency: 2, Branches: []agent.Agent{
		count("words", func(s string) int { return len(strings.Fields(s)) }),
		count("bytes", func(s string) int { return len(s) }),
	}})
	out, _ := agent.Invoke(context.Background(), p, "to be or not to be")
	fmt.Println(string(out))
	// Output: {"bytes":18,"words":6}
}

func ExampleNewReflect() {
	m := modeltest.New(nil,
		modeltest.Text("roses are red"),                                       // worker
		modeltest.JSON(compose.Review{Feedback: "capitalise the first word"}), // reviewer
		modeltest.Text("Roses are red"),                                       // worker
		modeltest.JSON(compose.Review{Approved: true}),                        // reviewer
	)
	verdict, _ := agent.SchemaFor[compose.Review]()
	poet, _ := agent.NewAI(agent.AIConfig{Name: "poet", Model: m})
	critic, _ := agent.NewAI(agent.AIConfig{Name: "critic", Model: m, OutputSchema: verdict})
	loop, _ := compose.NewReflect(compose.ReflectConfig{Name: "poem", Worker: poet, Reviewer: critic, MaxRounds: 3})
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
	rt, _ := compose.NewRoute(compose.RouteConfig{Name: "desk", Model: m, Agents: []agent.Agent{weather, jokes}})
	out, _ := agent.Invoke(context.Background(), rt, "Weather in Oslo tomorrow?")
	fmt.Println(string(out))
	// Output: {"message":"Snow, asked: Weather in Oslo tomorrow?"}
}
