package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/flow"
)

// SequenceConfig configures a [Sequence].
type SequenceConfig struct {
	// Name identifies the sequence; it must be a valid tool name.
	Name string
	// Description tells a model what the sequence does.
	Description string
	// Steps run in order; at least one.
	Steps []agent.Agent
}

// Sequence runs its steps one after the other. Each step receives the
// sequence's input merged with the outputs of the steps before it (on a
// shared key the later output wins), so an AI step's {"message": answer}
// becomes the next step's message. The sequence's output is the merge of
// every step's output. Every step's events appear in the sequence's stream,
// in order. Steps must return JSON objects; the first failing step fails
// the sequence.
type Sequence struct {
	*agent.Custom
	steps []agent.Agent
}

// NewSequence checks cfg and returns the sequence.
func NewSequence(cfg SequenceConfig) (*Sequence, error) {
	if len(cfg.Steps) == 0 {
		return nil, flow.ConfigError("sequence", cfg.Name, "it has no steps: give it at least one agent in Steps")
	}
	for i, s := range cfg.Steps {
		if s == nil {
			return nil, flow.ConfigError("sequence", cfg.Name, "step %d is nil", i)
		}
	}
	w := &Sequence{steps: cfg.Steps}
	c, err := agent.New(agent.Info{Name: cfg.Name, Description: cfg.Description, Kind: flow.Kind, InputSchema: cfg.Steps[0].Info().InputSchema}, w.body)
	if err != nil {
		return nil, fmt.Errorf("sequence: %w", err)
	}
	w.Custom = c
	return w, nil
}

// Steps returns the sequence's steps.
func (s *Sequence) Steps() []agent.Agent { return s.steps }

// body is the run of the sequence: it runs the steps in order on input.
func (s *Sequence) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	in, err := flow.Fields(r.Input)
	if err != nil {
		return nil, fmt.Errorf("%w: sequence %s: input %v", agent.ErrInvalidInput, s.Info().Name, err)
	}
	acc := map[string]json.RawMessage{}
	for i, step := range s.steps {
		stepIn := maps.Clone(in)
		maps.Copy(stepIn, acc)
		raw, err := json.Marshal(stepIn)
		if err != nil {
			return nil, err
		}
		out, err := r.Call(ctx, step, raw)
		if err != nil {
			return nil, stepError(s.Info().Name, i, step, err)
		}
		f, err := flow.Fields(out)
		if err != nil {
			return nil, fmt.Errorf("sequence %s: step %d (%s) output %v: steps must return objects so their outputs can be merged", s.Info().Name, i+1, step.Info().Name, err)
		}
		maps.Copy(acc, f)
	}
	return json.Marshal(acc)
}

// StepError is the failure of one step of a [Sequence]. It wraps the
// step's error.
type StepError struct {
	Workflow string // the sequence
	Step     int    // from 1
	Agent    string // the step's agent
	Err      error
}

// Error returns the error's message.
func (e *StepError) Error() string {
	return fmt.Sprintf("%s: step %d (%s): %v", e.Workflow, e.Step, e.Agent, e.Err)
}

// Unwrap returns the step's error.
func (e *StepError) Unwrap() error { return e.Err }

func stepError(name string, i int, step agent.Agent, err error) error {
	if err == agentrt.ErrStopped {
		return err
	}
	return &StepError{Workflow: name, Step: i + 1, Agent: step.Info().Name, Err: err}
}
