package compose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/flow"
)

// DefaultMaxRounds bounds the review rounds of a [Reflect] and the
// disagreement rounds of a [Coordinator] when none is configured.
const DefaultMaxRounds = 3

// ErrNotApproved marks work a reviewer still rejected when the rounds ran
// out; see [NotApprovedError].
var ErrNotApproved = errors.New("not approved")

// ReflectConfig configures a [Reflect].
type ReflectConfig struct {
	// Name identifies the loop; it must be a valid tool name.
	Name string
	// Description tells a model what it does.
	Description string
	// Worker does the work.
	Worker agent.Agent
	// Reviewer judges it; its output is a [Review] unless Approved reads
	// it otherwise.
	Reviewer agent.Agent
	// MaxRounds bounds the worker runs (default DefaultMaxRounds).
	MaxRounds int
	// ReturnLast makes a run that is still not approved after MaxRounds
	// return the worker's last output instead of failing with a
	// [*NotApprovedError].
	ReturnLast bool
	// Approved reads the reviewer's output; by default it is decoded as a
	// [Review].
	Approved func(review json.RawMessage) (Review, error)
	// ReviewInput builds the reviewer's input from the loop's input and the
	// worker's output. By default the reviewer gets {"message": the request
	// and the answer to review as text, "input": …, "output": …}.
	ReviewInput func(input, output json.RawMessage) (json.RawMessage, error)
	// Revise builds the worker's input for the next round. By default it is
	// the loop's input with {"previous": output, "feedback": text}, and,
	// when the input has a text "message", that message extended with the
	// previous answer and the feedback, so an AI worker reads them.
	Revise func(input, output json.RawMessage, review Review) (json.RawMessage, error)
}

// Reflect runs a worker and a reviewer in turn until the reviewer
// approves, up to MaxRounds worker runs. Its output is the approved
// output. Past the bound it fails with a [*NotApprovedError] (wrapping
// [ErrNotApproved]) that carries the last output and review, or returns
// the last output when ReturnLast is set.
type Reflect struct {
	*agent.Custom
	cfg ReflectConfig
}

// NewReflect checks cfg and returns the loop.
func NewReflect(cfg ReflectConfig) (*Reflect, error) {
	if cfg.Worker == nil || cfg.Reviewer == nil {
		return nil, flow.ConfigError("reflect", cfg.Name, "it needs both a Worker and a Reviewer")
	}
	switch {
	case cfg.MaxRounds == 0:
		cfg.MaxRounds = DefaultMaxRounds
	case cfg.MaxRounds < 0:
		return nil, flow.ConfigError("reflect", cfg.Name, "MaxRounds is %d; it must be positive", cfg.MaxRounds)
	}
	if cfg.Approved == nil {
		name := cfg.Reviewer.Info().Name
		cfg.Approved = func(raw json.RawMessage) (Review, error) { return DecodeReview(name, raw) }
	}
	if cfg.ReviewInput == nil {
		cfg.ReviewInput = defaultReviewInput
	}
	if cfg.Revise == nil {
		cfg.Revise = defaultRevise
	}
	w := &Reflect{cfg: cfg}
	worker := cfg.Worker.Info()
	c, err := agent.New(agent.Info{Name: cfg.Name, Description: cfg.Description, Kind: flow.Kind, InputSchema: worker.InputSchema, OutputSchema: worker.OutputSchema}, w.body)
	if err != nil {
		return nil, fmt.Errorf("reflect: %w", err)
	}
	w.Custom = c
	return w, nil
}

// body is the run of the reflect loop on input.
func (f *Reflect) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	workIn := r.Input
	var out json.RawMessage
	var review Review
	for round := 1; round <= f.cfg.MaxRounds; round++ {
		var err error
		if out, err = r.Call(ctx, f.cfg.Worker, workIn); err != nil {
			return nil, roundError(f.Info().Name, round, f.cfg.Worker, err)
		}
		revIn, err := f.cfg.ReviewInput(r.Input, out)
		if err != nil {
			return nil, fmt.Errorf("reflect %s: round %d: review input: %w", f.Info().Name, round, err)
		}
		rawReview, err := r.Call(ctx, f.cfg.Reviewer, revIn)
		if err != nil {
			return nil, roundError(f.Info().Name, round, f.cfg.Reviewer, err)
		}
		if review, err = f.cfg.Approved(rawReview); err != nil {
			return nil, fmt.Errorf("reflect %s: round %d: %w", f.Info().Name, round, err)
		}
		if review.Approved {
			return out, nil
		}
		if round < f.cfg.MaxRounds {
			if workIn, err = f.cfg.Revise(r.Input, out, review); err != nil {
				return nil, fmt.Errorf("reflect %s: round %d: revise: %w", f.Info().Name, round, err)
			}
		}
	}
	if f.cfg.ReturnLast {
		return out, nil
	}
	return nil, &NotApprovedError{Workflow: f.Info().Name, Rounds: f.cfg.MaxRounds, LastOutput: out, LastReview: review}
}

func roundError(name string, round int, a agent.Agent, err error) error {
	if err == agentrt.ErrStopped {
		return err
	}
	return fmt.Errorf("%s: round %d: %s: %w", name, round, a.Info().Name, err)
}

// NotApprovedError reports work still rejected when the rounds ran out. It
// wraps [ErrNotApproved].
type NotApprovedError struct {
	Workflow   string
	Rounds     int             // the rounds run
	LastOutput json.RawMessage // the last work reviewed
	LastReview Review          // the last verdict
}

// Error returns the error's message.
func (e *NotApprovedError) Error() string {
	fb := e.LastReview.Feedback
	if fb == "" {
		fb = "(no feedback)"
	}
	return fmt.Sprintf("%s: not approved after %d rounds; last feedback: %s (raise MaxRounds, or set ReturnLast to accept the last output)", e.Workflow, e.Rounds, fb)
}

// Unwrap returns [ErrNotApproved].
func (e *NotApprovedError) Unwrap() error { return ErrNotApproved }

func defaultReviewInput(input, output json.RawMessage) (json.RawMessage, error) {
	text := "Request:\n" + flow.TextOf(input) + "\n\nAnswer to review:\n" + flow.TextOf(output)
	return json.Marshal(map[string]any{"message": text, "input": input, "output": output})
}

func defaultRevise(input, output json.RawMessage, review Review) (json.RawMessage, error) {
	f, err := flow.Fields(input)
	if err != nil {
		return nil, err
	}
	fb := review.Feedback
	if fb == "" {
		fb = "The reviewer rejected the answer without saying why."
	}
	var msg string
	if raw, ok := f["message"]; ok && json.Unmarshal(raw, &msg) == nil {
		msg += "\n\nYour previous answer:\n" + flow.TextOf(output) + "\n\nA reviewer rejected it: " + fb + "\nRevise your answer."
		f["message"], _ = json.Marshal(msg)
	}
	f["previous"] = output
	f["feedback"], _ = json.Marshal(fb)
	return json.Marshal(f)
}
