package engine_test

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
)

func ExampleEngine_Invoke() {
	m := modeltest.New(nil, modeltest.Text("Paris").WithUsage(12, 1))
	geo, _ := agent.NewAI(agent.AIConfig{Name: "geo", Instructions: "Answer with one word."})
	e := engine.New(engine.WithModel(m), engine.WithRunLimits(agent.Limits{MaxTokens: 10_000}))
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
	mem, _ := engine.NewWindow(engine.WindowConfig{MaxTurns: 10, MaxTokens: 4000})
	s := engine.New(engine.WithModel(m)).NewSession(a, mem)
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
