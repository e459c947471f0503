package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
)

func ExampleEngine_Invoke() {
	m := modeltest.New(nil, modeltest.Text("Paris").WithUsage(12, 1))
	geo, _ := agent.NewAI(agent.AIConfig{Name: "geo", Instructions: "Answer with one word."})
	e := engine.New(engine.Config{Model: m, Limits: agent.Limits{MaxTokens: 10_000}})
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
	s := engine.New(engine.Config{Model: m}).NewSession(a, mem)
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

func ExampleEngine_Resume() {
	ctx := context.Background()
	transfer, _ := agent.NewFunc("transfer", "Moves money once a person approves.", func(ctx context.Context, in struct {
		Amount int `json:"amount"`
	}) (string, error) {
		ok, err := agent.Ask(ctx, "approval", in, json.RawMessage(`{"type":"boolean"}`))
		if err != nil {
			return "", err // the run waits here
		}
		if string(ok) != "true" {
			return "declined", nil
		}
		return fmt.Sprintf("moved %d", in.Amount), nil
	})
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()}) // or checkpoint/sqlite, checkpoint/postgres
	_, err := e.Invoke(ctx, transfer, map[string]int{"amount": 5})
	var waiting *agent.InterruptedError
	if !errors.As(err, &waiting) {
		fmt.Println(err)
		return
	}
	q := waiting.Questions[0]
	fmt.Println("asks:", q.Kind, string(q.Payload))

	// Later, in this process or another one with the same store:
	res, err := e.ResumeInvoke(ctx, transfer, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`true`)})
	fmt.Println(string(res.Output), err)
	// Output:
	// asks: approval {"amount":5}
	// "moved 5" <nil>
}
