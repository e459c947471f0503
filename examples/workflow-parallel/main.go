// Command workflow-parallel asks three analysts the same question at once
// (compose.Parallel): an optimist lists the benefits, a skeptic the risks
// and a historian the background. Their answers, each under its own key,
// are merged into one output and shown as three sections.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/cli"
	_ "github.com/loomwork/loom/model/providers"
)

// analysts are the branches: output key, instructions.
var analysts = []struct{ key, instructions string }{
	{"benefits", "You are an optimist. List the main benefits of what the user asks about, in three short bullet points."},
	{"risks", "You are a skeptic. List the main risks or downsides of what the user asks about, in three short bullet points."},
	{"background", "You are a historian. Give the background of what the user asks about in two sentences."},
}

func newApp() *cli.App {
	concurrency := 3
	return &cli.App{
		Name:            "workflow-parallel",
		Summary:         "three analysts answer the same question at once; their answers are merged",
		Welcome:         "Ask about anything: an optimist, a skeptic and a historian answer at once.",
		DefaultQuestion: "Remote work",
		Format:          format,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&concurrency, "concurrency", concurrency, "how many analysts run at once")
		},
		Build: func(ctx context.Context, env *cli.Env) (agent.Agent, error) { return build(ctx, env, concurrency) },
	}
}

func build(_ context.Context, env *cli.Env, concurrency int) (agent.Agent, error) {
	branches := make([]agent.Agent, len(analysts))
	for i, a := range analysts {
		ai, err := agent.NewAI(agent.AIConfig{Name: a.key, Instructions: a.instructions, OutputKey: a.key, Options: env.Flags.Options})
		if err != nil {
			return nil, err
		}
		branches[i] = ai
	}
	return compose.NewParallel(compose.ParallelConfig{
		Name:           "analysts",
		Description:    "Three analysts answer the same question at once.",
		Branches:       branches,
		MaxConcurrency: concurrency,
	})
}

// format shows the merged output as sections, in the analysts' order.
func format(output json.RawMessage) string {
	var m map[string]string
	if json.Unmarshal(output, &m) != nil {
		return string(output)
	}
	var b strings.Builder
	for i, a := range analysts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + a.key + "\n" + strings.TrimSpace(m[a.key]))
	}
	return b.String()
}

func main() { os.Exit(cli.Run(newApp())) }
