// Command workflow-sequence runs three AI agents one after the other:
// a researcher lists the key facts, a writer turns them into a paragraph,
// and an editor tightens it. Each step receives the previous step's answer
// as its message (compose.Sequence), and every step's text is shown as it
// streams, under the step's name.
package main

import (
	"context"
	"os"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
)

func newApp() *cli.App {
	return &cli.App{
		Name:            "workflow-sequence",
		Summary:         "a researcher, a writer and an editor, one after the other",
		Welcome:         "Give me a topic: a researcher, a writer and an editor will work on it in turn.",
		DefaultQuestion: "Why is the sky blue?",
		Build:           build,
	}
}

func build(_ context.Context, env *cli.Env) (agent.Agent, error) {
	step := func(name, instructions string) (agent.Agent, error) {
		return agent.NewAI(agent.AIConfig{Name: name, Instructions: instructions, Options: env.Flags.Options})
	}
	researcher, err := step("researcher", "You are a researcher. List the three to five key facts needed to answer the user's topic, one per line, without commentary.")
	if err != nil {
		return nil, err
	}
	writer, err := step("writer", "You are a writer. Turn the facts you are given into one clear paragraph for a curious reader.")
	if err != nil {
		return nil, err
	}
	editor, err := step("editor", "You are an editor. Tighten the paragraph you are given: keep every fact, cut every unneeded word, and answer with the edited paragraph only.")
	if err != nil {
		return nil, err
	}
	return compose.NewSequence(compose.SequenceConfig{
		Name:        "research_write_edit",
		Description: "Researches a topic, writes a paragraph and edits it.",
		Steps:       []agent.Agent{researcher, writer, editor},
	})
}

func main() { os.Exit(cli.Run(newApp())) }
