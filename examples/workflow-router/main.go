// Command workflow-router hands each question to one of three specialists
// (compose.Route): a router model picks the agent best suited to answer
// it, with the router tool choice, and that agent's answer is the result.
package main

import (
	"context"
	"os"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
)

// specialists are the agents the router chooses from.
var specialists = []struct{ name, description, instructions string }{
	{"translator", "Translates text between languages.", "You are a translator. Translate what the user gives you; when no target language is named, translate into English. Answer with the translation only."},
	{"poet", "Writes short poems on any subject.", "You are a poet. Write a short poem (at most eight lines) on the user's subject."},
	{"explainer", "Explains facts, science and how things work, in plain words.", "You explain things plainly and briefly, in at most four sentences."},
}

func newApp() *cli.App {
	return &cli.App{
		Name:            "workflow-router",
		Summary:         "a router hands each question to the best of three specialists",
		Welcome:         "Ask anything: a router picks the translator, the poet or the explainer to answer.",
		DefaultQuestion: "Translate 'good morning' into French.",
		Answer:          []string{"translator", "poet", "explainer"},
		Build:           build,
	}
}

func build(_ context.Context, env *cli.Env) (agent.Agent, error) {
	agents := make([]agent.Agent, len(specialists))
	for i, s := range specialists {
		a, err := agent.NewAI(agent.AIConfig{Name: s.name, Description: s.description, Instructions: s.instructions, Options: env.Flags.Options})
		if err != nil {
			return nil, err
		}
		agents[i] = a
	}
	return compose.NewRoute(compose.RouteConfig{
		Name:        "router",
		Description: "Hands the question to the best specialist.",
		Agents:      agents,
		Options:     env.Flags.Options,
	})
}

func main() { os.Exit(cli.Run(newApp())) }
