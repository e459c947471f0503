package compose

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/model"
)

// DefaultRouterInstructions are a [Route]'s instructions when none are
// given.
const DefaultRouterInstructions = "You are a router. Read the request and hand it to the one agent best suited to answer it, by calling that agent's tool with the request. Do not answer the request yourself."

// RouteConfig configures a [Route].
type RouteConfig struct {
	// Name identifies the router; it must be a valid tool name.
	Name string
	// Description tells a model what it does.
	Description string
	// Instructions tell the router's model how to choose (default
	// DefaultRouterInstructions). The agents' names and descriptions are
	// sent as tools, so they need not be repeated here.
	Instructions string
	// Model chooses; nil uses the run's or the engine's default model.
	Model model.Model
	// Options are sent with the routing call.
	Options model.Options
	// Agents are the candidates; at least one, with distinct names.
	Agents []agent.Agent
}

// Route makes one model call that must pick one of its agents (the
// [agent.Router] tool choice) and hands the request off to it: the chosen
// agent runs with the route's input merged over the arguments the model
// gave (so it sees the user's request as it was), and its output is the
// route's output. A model that picks no agent fails the run with
// [agent.ErrNoRoute].
type Route struct {
	ai     *agent.AI
	agents []agent.Agent
	info   agent.Info
}

// NewRoute checks cfg and returns the router.
func NewRoute(cfg RouteConfig) (*Route, error) {
	if len(cfg.Agents) == 0 {
		return nil, flow.ConfigError("route", cfg.Name, "it has no Agents to choose from")
	}
	if cfg.Instructions == "" {
		cfg.Instructions = DefaultRouterInstructions
	}
	rt := &Route{agents: cfg.Agents}
	tools := make([]agent.Agent, len(cfg.Agents))
	for i, a := range cfg.Agents {
		if a == nil {
			return nil, flow.ConfigError("route", cfg.Name, "agent %d is nil", i)
		}
		tools[i] = &handoff{route: rt, target: a}
	}
	ai, err := agent.NewAI(agent.AIConfig{
		Name:         cfg.Name,
		Description:  cfg.Description,
		Instructions: cfg.Instructions,
		Model:        cfg.Model,
		Options:      cfg.Options,
		Tools:        tools,
		ToolChoice:   agent.Router(),
	})
	if err != nil {
		return nil, err
	}
	rt.ai = ai
	rt.info = ai.Info()
	rt.info.OutputSchema = flow.AnyObject
	return rt, nil
}

// Info returns the router's name and description, its input schema
// ({"message": text}) and an object output schema: the output is the
// chosen agent's.
func (rt *Route) Info() agent.Info { return rt.info }

// Agents returns the candidates.
func (rt *Route) Agents() []agent.Agent { return rt.agents }

// Run routes input to one agent and returns that agent's output.
func (rt *Route) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return rt.ai.Run(ctx, input)
}

// handoff is a candidate as the router's model sees it: the agent itself,
// run on the route's input merged over the model's arguments.
type handoff struct {
	route  *Route
	target agent.Agent
}

// Info is the target's, but for ChecksInput: the hand-off's input is the
// route's merged over the model's arguments.
func (h *handoff) Info() agent.Info {
	i := h.target.Info()
	i.ChecksInput = false
	return i
}

func (h *handoff) Run(ctx context.Context, args json.RawMessage) iter.Seq2[agent.Event, error] {
	in := args
	// The router's run is the one calling this hand-off; its input is the
	// route's input.
	if r := agent.CurrentRun(ctx); r != nil && r.Agent == agent.Agent(h.route.ai) {
		if m, err := flow.Merge(args, r.Input); err == nil {
			in = m
		}
	}
	return h.target.Run(ctx, in)
}
