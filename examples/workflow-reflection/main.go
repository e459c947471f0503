// Command workflow-reflection pairs a coder with a reviewer
// (compose.Reflect): the coder writes a JavaScript function, the reviewer
// approves it or says what is wrong, and the coder revises it, up to
// --max-rounds times. Both agents' text streams under their names.
package main

import (
	"context"
	"flag"
	"os"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
)

const (
	coderInstructions = "You are a careful JavaScript programmer. Write the function the user asks for. " +
		"Answer with the code only, in one ```js block. When a reviewer rejected your previous version, fix what they found."
	reviewerInstructions = "You are a strict code reviewer. Read the request and the JavaScript answer to review. " +
		"Approve it only when it is correct, handles edge cases and is readable; otherwise reject it and say exactly what to fix."
)

type settings struct {
	maxRounds  int
	returnLast bool
}

func newApp() *cli.App {
	s := settings{maxRounds: compose.DefaultMaxRounds}
	return &cli.App{
		Name:            "workflow-reflection",
		Summary:         "a coder and a reviewer iterate until the reviewer approves",
		Welcome:         "Ask for a JavaScript function: a coder writes it and a reviewer checks it.",
		DefaultQuestion: "Write a function that returns the n-th Fibonacci number.",
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&s.maxRounds, "max-rounds", s.maxRounds, "the most versions the coder writes")
			fs.BoolVar(&s.returnLast, "return-last", false, "answer with the last version when the reviewer never approves, instead of failing")
		},
		Build: func(ctx context.Context, env *cli.Env) (agent.Agent, error) { return build(ctx, env, s) },
	}
}

func build(_ context.Context, env *cli.Env, s settings) (agent.Agent, error) {
	coder, err := agent.NewAI(agent.AIConfig{Name: "coder", Instructions: coderInstructions, Options: env.Flags.Options})
	if err != nil {
		return nil, err
	}
	verdict, err := agent.SchemaFor[compose.Review]()
	if err != nil {
		return nil, err
	}
	reviewer, err := agent.NewAI(agent.AIConfig{Name: "reviewer", Instructions: reviewerInstructions, OutputSchema: verdict, Options: env.Flags.Options})
	if err != nil {
		return nil, err
	}
	return compose.NewReflect(compose.ReflectConfig{
		Name:        "code_review",
		Description: "Writes a JavaScript function and revises it until a reviewer approves.",
		Worker:      coder,
		Reviewer:    reviewer,
		MaxRounds:   s.maxRounds,
		ReturnLast:  s.returnLast,
	})
}

func main() { os.Exit(cli.Run(newApp())) }
