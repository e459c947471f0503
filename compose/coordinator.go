package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/flow"
)

// DefaultMaxSubtasks bounds a [Coordinator]'s plan when none is configured.
const DefaultMaxSubtasks = 8

// Plan is a planner's output: the subtasks, in the order they run. Give an
// AI planner OutputSchema: agent.SchemaFor[compose.Plan]().
type Plan struct {
	Subtasks []Subtask `json:"subtasks" jsonschema:"description=the steps that solve the task, in order; each self-contained"`
}

// Subtask is one step of a [Plan].
type Subtask struct {
	Task string `json:"task" jsonschema:"description=what this step must produce, in one or two sentences"`
}

// The resolutions of a subtask, in [SubtaskResult].
const (
	ResolvedUnreviewed = "unreviewed" // no reviewer
	ResolvedApproved   = "approved"   // the reviewer approved
	ResolvedArbiter    = "arbiter"    // the arbiter settled a disagreement
	ResolvedAccepted   = "accepted"   // still disagreed; accepted by policy
)

// SubtaskResult is how one subtask was solved.
type SubtaskResult struct {
	Task       string          `json:"task"`
	Solution   json.RawMessage `json:"solution"`         // the coder's last output
	Result     json.RawMessage `json:"result,omitempty"` // the executor's output
	Rounds     int             `json:"rounds"`           // coder runs
	Resolution string          `json:"resolution"`       // one of the Resolved… values
}

// CoordinatorOutput is a [Coordinator]'s output.
type CoordinatorOutput struct {
	Message  string          `json:"message"`
	Subtasks []SubtaskResult `json:"subtasks"`
}

// CoordinatorConfig configures a [Coordinator]. Only Coder is required;
// each other role is skipped when nil.
type CoordinatorConfig struct {
	// Name identifies the coordinator; it must be a valid tool name.
	Name string
	// Description tells a model what it does.
	Description string
	// Planner splits the task into subtasks; its output is a [Plan]. Nil,
	// or an empty plan, makes the whole task one subtask.
	Planner agent.Agent
	// Coder solves a subtask. It gets {"message": the subtask, with the
	// overall task, earlier results and any feedback}.
	Coder agent.Agent
	// Reviewer judges a solution before it is executed; its output is a
	// [Review]. A rejection sends the feedback back to the coder.
	Reviewer agent.Agent
	// Executor runs an accepted solution: it gets the coder's output merged
	// with {"task": …}. A failure (a run error) goes to ErrorHandler and
	// back to the coder.
	Executor agent.Agent
	// ErrorHandler turns an executor failure ([Failure]) into a correction
	// request ({"message": …}); nil uses [NewErrorHandler].
	ErrorHandler agent.Agent
	// Arbiter settles a disagreement still open after MaxRounds: it gets
	// the subtask, the solution and the reviewer's objection, and its
	// [Review] decides. Without one, AcceptOnDisagreement decides.
	Arbiter agent.Agent
	// AcceptOnDisagreement accepts the last solution when the reviewer
	// still rejects it after MaxRounds and there is no arbiter. By default
	// the run fails with a [*NotApprovedError].
	AcceptOnDisagreement bool
	// Synthesizer writes the final answer from the subtask results; it gets
	// {"message": the task and every result, "subtasks": […]}. Nil joins
	// the results.
	Synthesizer agent.Agent
	// MaxRounds bounds the coder runs per subtask (default
	// DefaultMaxRounds): every rejection or failed execution starts a new
	// round.
	MaxRounds int
	// MaxSubtasks bounds the plan (default DefaultMaxSubtasks); a longer
	// plan fails the run.
	MaxSubtasks int
}

// Coordinator splits a task into subtasks and sees each through a fixed
// set of roles, one subtask after the other:
//
//  1. the Planner splits the task (or the task is one subtask);
//  2. for each subtask, the Coder writes a solution, seeing the task and
//     the results of the subtasks before it;
//  3. the Reviewer approves it or sends feedback back to the Coder;
//  4. the Executor runs the accepted solution; a failure goes through the
//     ErrorHandler, which writes a correction request for the Coder;
//  5. the Synthesizer writes the answer from all results.
//
// Disagreement is bounded: a subtask gets at most MaxRounds Coder runs.
// When the Reviewer still rejects the last one, the Arbiter decides, or
// AcceptOnDisagreement accepts it, or the run fails with a
// [*NotApprovedError]; when the last execution still fails, the run fails
// with a [*RetriesError]. Both come wrapped in a [*SubtaskError]. The
// output is a [CoordinatorOutput]. Every role's run is a nested run whose
// events appear in the stream.
//
// The Coordinator drives its coder and reviews solutions, not tool calls.
// For a coder that calls a sandbox itself, use package codeexec, whose
// reviewer, approver and error handler are guards around the one sandbox
// tool call; both use this package's [Review], [Correct] and
// [RetriesError].
type Coordinator struct {
	*agent.Custom
	cfg CoordinatorConfig
}

// NewCoordinator checks cfg and returns the coordinator.
func NewCoordinator(cfg CoordinatorConfig) (*Coordinator, error) {
	if cfg.Coder == nil {
		return nil, flow.ConfigError("coordinator", cfg.Name, "it has no Coder")
	}
	switch {
	case cfg.MaxRounds == 0:
		cfg.MaxRounds = DefaultMaxRounds
	case cfg.MaxRounds < 0:
		return nil, flow.ConfigError("coordinator", cfg.Name, "MaxRounds is %d; it must be positive", cfg.MaxRounds)
	}
	switch {
	case cfg.MaxSubtasks == 0:
		cfg.MaxSubtasks = DefaultMaxSubtasks
	case cfg.MaxSubtasks < 0:
		return nil, flow.ConfigError("coordinator", cfg.Name, "MaxSubtasks is %d; it must be positive", cfg.MaxSubtasks)
	}
	if cfg.Executor != nil && cfg.ErrorHandler == nil {
		h, err := NewErrorHandler()
		if err != nil {
			return nil, err
		}
		cfg.ErrorHandler = h
	}
	out, err := agent.SchemaFor[CoordinatorOutput]()
	if err != nil {
		return nil, err
	}
	w := &Coordinator{cfg: cfg}
	c, err := agent.New(agent.Info{Name: cfg.Name, Description: cfg.Description, Kind: flow.Kind, InputSchema: agent.TextSchema(agent.DefaultTextKey, "The task, in plain language.", true), OutputSchema: out}, w.body)
	if err != nil {
		return nil, fmt.Errorf("coordinator: %w", err)
	}
	w.Custom = c
	return w, nil
}

// body is the run of the coordinator: it plans and solves the task in input.
func (c *Coordinator) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	task := flow.TextOf(r.Input)
	subtasks, err := c.plan(ctx, r, task)
	if err != nil {
		return nil, err
	}
	results := make([]SubtaskResult, 0, len(subtasks))
	for i, st := range subtasks {
		res, err := c.solve(ctx, r, task, i, len(subtasks), st, results)
		if err != nil {
			if flow.Ends(ctx, err) {
				return nil, err
			}
			return nil, &SubtaskError{Workflow: c.Info().Name, Index: i + 1, Task: st.Task, Err: err}
		}
		results = append(results, res)
	}
	answer, err := c.synthesize(ctx, r, task, results)
	if err != nil {
		return nil, err
	}
	return json.Marshal(CoordinatorOutput{Message: answer, Subtasks: results})
}

// plan asks the planner for the subtasks.
func (c *Coordinator) plan(ctx context.Context, r *agent.Run, task string) ([]Subtask, error) {
	whole := []Subtask{{Task: task}}
	if c.cfg.Planner == nil {
		return whole, nil
	}
	out, err := r.Call(ctx, c.cfg.Planner, r.Input)
	if err != nil {
		if err == agentrt.ErrStopped {
			return nil, err
		}
		return nil, fmt.Errorf("%s: planner %s: %w", c.Info().Name, c.cfg.Planner.Info().Name, err)
	}
	var p Plan
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("%s: planner %s answered %s, which is not a plan: give it OutputSchema agent.SchemaFor[compose.Plan]()", c.Info().Name, c.cfg.Planner.Info().Name, flow.Describe(out))
	}
	var subtasks []Subtask
	for _, st := range p.Subtasks {
		if strings.TrimSpace(st.Task) != "" {
			subtasks = append(subtasks, st)
		}
	}
	if len(subtasks) == 0 {
		return whole, nil
	}
	if len(subtasks) > c.cfg.MaxSubtasks {
		return nil, fmt.Errorf("%s: planner %s split the task into %d subtasks, more than MaxSubtasks (%d): raise the limit or ask the planner for fewer steps", c.Info().Name, c.cfg.Planner.Info().Name, len(subtasks), c.cfg.MaxSubtasks)
	}
	return subtasks, nil
}

// solve runs the rounds of one subtask.
func (c *Coordinator) solve(ctx context.Context, r *agent.Run, task string, i, n int, st Subtask, done []SubtaskResult) (SubtaskResult, error) {
	prompt := subtaskPrompt(task, i, n, st, done)
	res := SubtaskResult{Task: st.Task, Resolution: ResolvedUnreviewed}
	coderIn := flow.Message(prompt, nil)
	failures := 0
	for round := 1; ; round++ {
		res.Rounds = round
		sol, err := r.Call(ctx, c.cfg.Coder, coderIn)
		if err != nil {
			return res, RoleError("coder", c.cfg.Coder, err)
		}
		res.Solution = sol
		last := round == c.cfg.MaxRounds
		if c.cfg.Reviewer != nil {
			rev, err := c.review(ctx, r, "reviewer", c.cfg.Reviewer, reviewPrompt(st.Task, sol), st, sol, nil)
			if err != nil {
				return res, err
			}
			switch {
			case rev.Approved:
				res.Resolution = ResolvedApproved
			case !last:
				coderIn = flow.Message(revisionPrompt(prompt, sol, "A reviewer rejected it: "+Feedback(rev)), nil)
				continue
			default:
				if res.Resolution, err = c.settle(ctx, r, st, sol, rev, round); err != nil {
					return res, err
				}
			}
		}
		if c.cfg.Executor == nil {
			return res, nil
		}
		taskField, _ := json.Marshal(map[string]string{"task": st.Task})
		in, err := flow.Merge(sol, taskField)
		if err != nil {
			return res, fmt.Errorf("executor %s: the coder's output %w", c.cfg.Executor.Info().Name, err)
		}
		out, err := r.Call(ctx, c.cfg.Executor, in)
		if err == nil {
			res.Result = out
			return res, nil
		}
		if flow.Ends(ctx, err) {
			return res, err
		}
		failures++
		if last {
			return res, &RetriesError{Workflow: c.Info().Name, Attempts: failures, Retries: c.cfg.MaxRounds - 1, Last: err}
		}
		fix, herr := Correct(ctx, r, c.cfg.ErrorHandler, Failure{Task: st.Task, Solution: sol, Error: err.Error(), Attempt: failures, Remaining: c.cfg.MaxRounds - round})
		if herr != nil {
			return res, RoleError("error handler", c.cfg.ErrorHandler, herr)
		}
		coderIn = flow.Message(revisionPrompt(prompt, sol, "Running it failed. "+fix), nil)
	}
}

// review runs a reviewer (or the arbiter) and reads its verdict.
func (c *Coordinator) review(ctx context.Context, r *agent.Run, role string, who agent.Agent, prompt string, st Subtask, sol json.RawMessage, objection *Review) (Review, error) {
	extra := map[string]any{"task": st.Task, "solution": sol}
	if objection != nil {
		extra["review"] = objection
	}
	out, err := r.Call(ctx, who, flow.Message(prompt, extra))
	if err != nil {
		return Review{}, RoleError(role, who, err)
	}
	return DecodeReview(who.Info().Name, out)
}

// settle resolves a disagreement that outlasted the rounds.
func (c *Coordinator) settle(ctx context.Context, r *agent.Run, st Subtask, sol json.RawMessage, rev Review, rounds int) (string, error) {
	if c.cfg.Arbiter != nil {
		prompt := reviewPrompt(st.Task, sol) + "\n\nA reviewer still rejects it after " + fmt.Sprint(rounds) + " rounds: " + Feedback(rev) +
			"\nDecide: approve the solution if it is acceptable despite the objection, or reject it with your reason."
		verdict, err := c.review(ctx, r, "arbiter", c.cfg.Arbiter, prompt, st, sol, &rev)
		if err != nil {
			return "", err
		}
		if verdict.Approved {
			return ResolvedArbiter, nil
		}
		return "", &NotApprovedError{Workflow: c.Info().Name, Rounds: rounds, LastOutput: sol, LastReview: verdict}
	}
	if c.cfg.AcceptOnDisagreement {
		return ResolvedAccepted, nil
	}
	return "", &NotApprovedError{Workflow: c.Info().Name, Rounds: rounds, LastOutput: sol, LastReview: rev}
}

// synthesize writes the final answer.
func (c *Coordinator) synthesize(ctx context.Context, r *agent.Run, task string, results []SubtaskResult) (string, error) {
	var b strings.Builder
	for i, res := range results {
		if len(results) > 1 {
			fmt.Fprintf(&b, "%d. %s\n", i+1, res.Task)
		}
		b.WriteString(resultText(res))
		if i < len(results)-1 {
			b.WriteString("\n\n")
		}
	}
	if c.cfg.Synthesizer == nil {
		return b.String(), nil
	}
	prompt := "Task: " + task + "\n\nResults of the subtasks:\n" + b.String() + "\n\nWrite the answer to the task from these results."
	out, err := r.Call(ctx, c.cfg.Synthesizer, flow.Message(prompt, map[string]any{"subtasks": results}))
	if err != nil {
		return "", RoleError("synthesizer", c.cfg.Synthesizer, err)
	}
	return flow.TextOf(out), nil
}

func resultText(res SubtaskResult) string {
	if len(res.Result) > 0 {
		return flow.TextOf(res.Result)
	}
	return flow.TextOf(res.Solution)
}

// RoleError names the role and agent of a step that failed, unless err
// must end the run as it is (the consumer stopped).
func RoleError(role string, a agent.Agent, err error) error {
	if err == agentrt.ErrStopped {
		return err
	}
	return fmt.Errorf("%s: %w", RoleName(role, a.Info().Name), err)
}

// RoleName names the agent name playing role in messages: "reviewer
// checker", or only "reviewer" when the agent is called after its role.
func RoleName(role, name string) string {
	if name == role || name == "" {
		return role
	}
	return role + " " + name
}

// Feedback is a review's feedback, or a stock sentence when it gave none.
func Feedback(r Review) string {
	if r.Feedback == "" {
		return "(no reason given)"
	}
	return r.Feedback
}

func subtaskPrompt(task string, i, n int, st Subtask, done []SubtaskResult) string {
	if n == 1 {
		return st.Task
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Overall task: %s\n\n", task)
	if len(done) > 0 {
		b.WriteString("Results of the earlier steps:\n")
		for j, d := range done {
			fmt.Fprintf(&b, "%d. %s\n%s\n", j+1, d.Task, resultText(d))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Your step (%d of %d): %s", i+1, n, st.Task)
	return b.String()
}

func reviewPrompt(task string, sol json.RawMessage) string {
	return "Task:\n" + task + "\n\nSolution to review:\n" + flow.TextOf(sol)
}

func revisionPrompt(prompt string, sol json.RawMessage, why string) string {
	return prompt + "\n\nYour previous solution:\n" + flow.TextOf(sol) + "\n\n" + why + "\nRevise your solution."
}
