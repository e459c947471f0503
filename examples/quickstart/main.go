// Command quickstart is the README's ten-line program: an AI agent with a
// typed Go function as its tool, on OpenAI's default model.
//
//	OPENAI_API_KEY=... go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers" // registers every provider with model.Open
)

func main() {
	ctx := context.Background()
	m, err := model.Open("openai") // or "anthropic", "gemini:gemini-2.5-pro", "ollama:llama3.2", …
	if err != nil {
		log.Fatal(err) // e.g. "openai: missing API key: set OPENAI_API_KEY …"
	}
	add, _ := agent.NewFunc("add", "Adds two numbers.", func(ctx context.Context, in struct{ A, B float64 }) (float64, error) {
		return in.A + in.B, nil
	})
	calc, _ := agent.NewAI(agent.AIConfig{Name: "calc", Model: m, Tools: []agent.Agent{add}})
	out, err := agent.Invoke(ctx, calc, "What is 2.5 + 4?")
	fmt.Println(string(out), err) // {"message":"2.5 + 4 = 6.5"} <nil>
}
