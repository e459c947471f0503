package spec

import (
	"fmt"

	"github.com/loomwork/loom/agent"
)

// Guardrails declares the guardrails of an ai entry (agent.AIConfig's
// InputGuardrails, OutputGuardrails and OutputHold):
//
//	guardrails:
//	  input:
//	    - builtin: max_input_size
//	      max_bytes: 4000
//	    - agent: topic_check       # answers an agent.Verdict
//	      parallel: true
//	  output:
//	    - builtin: deny_list       # API-key shapes by default
//	      mask: true
//	  hold: true
type Guardrails struct {
	// Input guardrails check the input before the first model call.
	Input []Guardrail `yaml:"input,omitempty" json:"input,omitempty"`
	// Output guardrails check the final answer.
	Output []Guardrail `yaml:"output,omitempty" json:"output,omitempty"`
	// Hold holds the streamed answer back until the output guardrails
	// pass it.
	Hold bool `yaml:"hold,omitempty" json:"hold,omitempty"`
	// Window releases held text in steps of this many characters, each
	// checked first (implies hold).
	Window int `yaml:"window,omitempty" json:"window,omitempty" jsonschema:"minimum=0"`
}

// Guardrail declares one guardrail: a built-in by name, or an agent (a
// declared entry or a registered tool) whose output is a verdict, such as
// an ai entry with the verdict as its output schema.
type Guardrail struct {
	// Builtin names a built-in guardrail: max_input_size or deny_list.
	Builtin string `yaml:"builtin,omitempty" json:"builtin,omitempty" jsonschema:"enum=max_input_size,enum=deny_list"`
	// Agent names the agent that decides. Set builtin or agent.
	Agent string `yaml:"agent,omitempty" json:"agent,omitempty"`
	// Name names the guardrail in errors and traces; default the
	// built-in's or the agent's name.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Parallel runs an input guardrail beside the first model call,
	// spending that call's tokens even when it refuses.
	Parallel bool `yaml:"parallel,omitempty" json:"parallel,omitempty"`
	// MaxBytes is max_input_size's limit.
	MaxBytes int `yaml:"max_bytes,omitempty" json:"max_bytes,omitempty" jsonschema:"minimum=1"`
	// Patterns are deny_list's regular expressions; default the shapes of
	// API keys.
	Patterns []string `yaml:"patterns,omitempty" json:"patterns,omitempty"`
	// Mask makes deny_list mask its matches instead of refusing.
	Mask bool `yaml:"mask,omitempty" json:"mask,omitempty"`
}

// refs lists the agents the guardrails name, for the reference checks.
func (g *Guardrails) refs(at string) []ref {
	if g == nil {
		return nil
	}
	var out []ref
	list := func(stage string, gs []Guardrail) {
		for i, gr := range gs {
			if gr.Agent != "" {
				out = append(out, ref{fmt.Sprintf("%s[%d].agent", join(join(at, "guardrails"), stage), i), gr.Agent})
			}
		}
	}
	list("input", g.Input)
	list("output", g.Output)
	return out
}

// guardrails builds an ai entry's guardrails into cfg.
func (b *builder) guardrails(g *Guardrails, cfg *agent.AIConfig) error {
	if g == nil {
		return nil
	}
	var err error
	if cfg.InputGuardrails, err = b.guardrailList("input", g.Input); err != nil {
		return err
	}
	if cfg.OutputGuardrails, err = b.guardrailList("output", g.Output); err != nil {
		return err
	}
	cfg.OutputHold = agent.OutputHold{On: g.Hold, Window: g.Window}
	return nil
}

func (b *builder) guardrailList(stage string, list []Guardrail) ([]agent.Guardrail, error) {
	out := make([]agent.Guardrail, 0, len(list))
	for i, d := range list {
		g, err := b.guardrail(stage, d)
		if err != nil {
			return nil, fmt.Errorf("guardrails.%s[%d]: %w", stage, i, err)
		}
		out = append(out, g)
	}
	return out, nil
}

func (b *builder) guardrail(stage string, d Guardrail) (agent.Guardrail, error) {
	if (d.Builtin == "") == (d.Agent == "") {
		return agent.Guardrail{}, fmt.Errorf("set exactly one of builtin and agent")
	}
	if d.Parallel && stage != "input" {
		return agent.Guardrail{}, fmt.Errorf("parallel applies to input guardrails only")
	}
	if d.Builtin != "max_input_size" && d.MaxBytes != 0 {
		return agent.Guardrail{}, fmt.Errorf("max_bytes applies to builtin max_input_size only")
	}
	if d.Builtin != "deny_list" && (d.Mask || len(d.Patterns) > 0) {
		return agent.Guardrail{}, fmt.Errorf("mask and patterns apply to builtin deny_list only")
	}
	var g agent.Guardrail
	var err error
	switch d.Builtin {
	case "":
		g.Agent, err = b.agent(d.Agent)
		g.Name = d.Agent
	case "max_input_size":
		if d.MaxBytes == 0 {
			return g, fmt.Errorf("max_input_size needs max_bytes, the largest input accepted in bytes")
		}
		g, err = agent.MaxInputSize(d.MaxBytes)
	case "deny_list":
		g, err = agent.DenyList(agent.DenyListConfig{Patterns: d.Patterns, Mask: d.Mask})
	default:
		return g, fmt.Errorf("unknown builtin %q (want max_input_size or deny_list)", d.Builtin)
	}
	if err != nil {
		return g, err
	}
	if d.Name != "" {
		g.Name = d.Name
	}
	g.Parallel = d.Parallel
	return g, nil
}
