package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/flow"
)

// ParallelConfig configures a [Parallel].
type ParallelConfig struct {
	// Name identifies the fan-out; it must be a valid tool name.
	Name string
	// Description tells a model what it does.
	Description string
	// Branches all receive the same input; at least one.
	Branches []agent.Agent
	// MaxConcurrency caps the branches running at once; 0 runs all at once.
	MaxConcurrency int
	// CollectErrors runs every branch to the end even when some fail, and
	// reports them together in a [*BranchesError]. By default the first
	// failure cancels the branches still running and fails the run.
	CollectErrors bool
}

// Parallel gives the same input to every branch, runs them concurrently
// (up to MaxConcurrency at once) and merges their outputs in the order the
// branches are listed: on a shared key the later-listed branch wins,
// whatever order they finished in. Events of all branches appear in the
// stream as they happen, each branch's in order.
type Parallel struct {
	*agent.Custom
	cfg ParallelConfig
}

// NewParallel checks cfg and returns the fan-out.
func NewParallel(cfg ParallelConfig) (*Parallel, error) {
	if len(cfg.Branches) == 0 {
		return nil, flow.ConfigError("parallel", cfg.Name, "it has no branches: give it at least one agent in Branches")
	}
	for i, b := range cfg.Branches {
		if b == nil {
			return nil, flow.ConfigError("parallel", cfg.Name, "branch %d is nil", i)
		}
	}
	if cfg.MaxConcurrency < 0 {
		return nil, flow.ConfigError("parallel", cfg.Name, "MaxConcurrency is %d; use 0 for no cap or a positive number", cfg.MaxConcurrency)
	}
	w := &Parallel{cfg: cfg}
	c, err := agent.New(agent.Info{Name: cfg.Name, Description: cfg.Description, Kind: flow.Kind, InputSchema: cfg.Branches[0].Info().InputSchema}, w.body)
	if err != nil {
		return nil, fmt.Errorf("parallel: %w", err)
	}
	w.Custom = c
	return w, nil
}

// body is the run of the parallel workflow: it runs every branch on input.
func (p *Parallel) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	jobs := make([]job, len(p.cfg.Branches))
	for i, b := range p.cfg.Branches {
		jobs[i] = job{Agent: b, Input: r.Input}
	}
	results, first, err := fanOut(ctx, r, jobs, p.cfg.MaxConcurrency, p.cfg.CollectErrors)
	if err != nil {
		return nil, err
	}
	return mergeResults(p.Info().Name, p.cfg.Branches, results, first)
}

// mergeResults merges the outputs of branches in order, or reports their
// failures.
func mergeResults(name string, branches []agent.Agent, results []done, first int) (json.RawMessage, error) {
	if first >= 0 {
		return nil, &BranchError{Workflow: name, Index: first, Agent: branches[first].Info().Name, Err: results[first].err}
	}
	be := &BranchesError{Workflow: name, Results: make([]BranchResult, len(results))}
	failed := false
	outs := make([]json.RawMessage, 0, len(results))
	for i, d := range results {
		br := BranchResult{Index: i, Agent: branches[i].Info().Name, Output: d.out, Err: d.err}
		if d.err == nil {
			if _, err := flow.Fields(d.out); err != nil {
				br.Err = fmt.Errorf("output %v: branches must return objects so their outputs can be merged", err)
			} else {
				outs = append(outs, d.out)
			}
		}
		if br.Err != nil {
			failed = true
		}
		be.Results[i] = br
	}
	if failed {
		return nil, be
	}
	return flow.Merge(outs...)
}

// BranchResult is how one branch of a fan-out ended.
type BranchResult struct {
	Index  int             // the branch's position, from 0
	Agent  string          // the branch's agent
	Output json.RawMessage // its output, when it succeeded
	Err    error           // its failure
}

// BranchesError reports the failed branches of a fan-out run with
// CollectErrors, together with the outputs of those that succeeded.
type BranchesError struct {
	Workflow string
	Results  []BranchResult // every branch, in order
}

// Error returns the error's message.
func (e *BranchesError) Error() string {
	var parts []string
	for _, r := range e.Results {
		if r.Err != nil {
			parts = append(parts, fmt.Sprintf("branch %d (%s): %v", r.Index, r.Agent, r.Err))
		}
	}
	return fmt.Sprintf("%s: %d of %d branches failed: %s", e.Workflow, len(parts), len(e.Results), strings.Join(parts, "; "))
}

// Unwrap returns every branch's error, so errors.Is finds any of them.
func (e *BranchesError) Unwrap() []error {
	var errs []error
	for _, r := range e.Results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errs
}

// BranchError is the failure of the branch that stopped a fan-out run.
type BranchError struct {
	Workflow string
	Index    int // the branch's position, from 0
	Agent    string
	Err      error
}

// Error returns the error's message.
func (e *BranchError) Error() string {
	return fmt.Sprintf("%s: branch %d (%s): %v", e.Workflow, e.Index, e.Agent, e.Err)
}

// Unwrap returns the branch's error.
func (e *BranchError) Unwrap() error { return e.Err }
