package evals

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

// humanEvalOrSkip loads HumanEval from ../shared/data (or $LOOM_HUMANEVAL).
// loom does not ship it; CI has the copy beside the repository, so under CI
// a missing copy fails instead of skipping.
func humanEvalOrSkip(t *testing.T) []Problem {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	path, err := FindHumanEval("", wd)
	if errors.Is(err, ErrNoHumanEval) && os.Getenv("CI") == "" {
		t.Skipf("HumanEval is not shipped with loom and no copy was found: %v", err)
	}
	require.NoError(t, err, "CI reads HumanEval from ../shared/data")
	probs, err := LoadHumanEval(path)
	require.NoError(t, err)
	require.Len(t, probs, 164)
	return probs
}

// referenceSolutions reads testdata/humaneval_solutions.js: one known-good
// answer per problem, each after a line "//== HumanEval/N".
func referenceSolutions(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("testdata/humaneval_solutions.js")
	require.NoError(t, err)
	marker := regexp.MustCompile(`(?m)^//== (HumanEval/\d+)\n`)
	locs := marker.FindAllStringSubmatchIndex(string(raw), -1)
	sols := make(map[string]string, len(locs))
	for i, loc := range locs {
		end := len(raw)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		id := string(raw[loc[2]:loc[3]])
		require.NotContains(t, sols, id, "two answers for %s", id)
		sols[id] = strings.TrimSpace(string(raw[loc[1]:end]))
	}
	return sols
}

// TestHumanEvalReferenceSolutions answers every HumanEval problem with a
// known-good JavaScript solution and runs it through the whole harness (the
// answer's fenced block extracted, the program with the assert shim run in
// the sandbox): every problem must pass. A problem no correct answer can
// pass (a translated test JavaScript cannot express) fails here until an
// override says why.
func TestHumanEvalReferenceSolutions(t *testing.T) {
	probs := humanEvalOrSkip(t)
	sols := referenceSolutions(t)
	require.Len(t, sols, len(probs), "one answer per problem")

	byPrompt := func(prompt string) string {
		for _, p := range probs {
			if strings.Contains(prompt, p.Prompt) {
				return sols[p.ID]
			}
		}
		t.Errorf("no problem has the prompt %q", prompt)
		return ""
	}
	solver, m := newSolver(t, len(probs), func(prompt string) modeltest.Turn {
		return modeltest.Text(fenced(byPrompt(prompt)))
	})
	// The answers are checked for being right, not fast: the race
	// detector on a loaded machine slows the interpreter several times, and
	// the default 5 s limit then stopped fizz_buzz(100000) (HumanEval/36).
	exec := newExecutor(t, sandbox.InProcessConfig{Limits: sandbox.Limits{Timeout: time.Minute}})
	rep, err := Run(context.Background(), probs, Config{Solver: solver, Executor: exec, Concurrency: 2})
	require.NoError(t, err)
	require.Equal(t, len(probs), m.Calls())
	var failed []string
	for _, res := range rep.Results {
		if res.Passed != 1 {
			s := res.Samples[0]
			failed = append(failed, res.ID+" ("+string(s.Class)+"): "+s.Message)
		}
	}
	require.Empty(t, failed, "known-good answers that fail; fix the answer, or the translation with an override that says why")
	require.Equal(t, map[int]float64{1: 1}, rep.PassAt)
}
