//go:build linux

package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

// evalCase is a hostile answer to a problem of loom eval: the function
// the tests call, and the classes its sample may end in.
type evalCase struct {
	name    string
	answer  string
	classes []string
}

// evalCases are the representative hostile answers: each defines add(a,
// b), the entry point of every problem, and attacks when it is called.
func evalCases() []evalCase {
	return []evalCase{
		{"infinite loop", `function add(a, b) { for(;;){} }`, []string{"timeout"}},
		{"memory bomb", `function add(a, b) { const x = []; for(;;) x.push(new Array(1e4).fill(a)) }`, []string{"sandbox_limit", "timeout"}},
		{"native recursion", `function add(a, b) { const o = {}; o.toString = Object.prototype.toLocaleString; return String(o) }`, []string{"sandbox_limit"}},
		{"output flood", `function add(a, b) { for (let i = 0; i < 1e5; i++) console.log('line', i); return 'x'.repeat(1e7) }`, []string{"assertion"}},
		{"killing the worker through process", `function add(a, b) { process.kill(process.pid, 'SIGKILL') }`, []string{"exception"}},
		{"deeply nested source", `function add(a, b) { return ` + strings.Repeat("[", 3e4) + strings.Repeat("]", 3e4) + ` }`, []string{"sandbox_limit"}},
	}
}

// evalProblem is a problem in HumanEval's format whose docstring names
// the case, so that the model can tell which answer to give.
func evalProblem(i int, name string) string {
	b, _ := json.Marshal(map[string]string{
		"task_id":            "Hostile/" + string(rune('0'+i)),
		"prompt":             "\n\ndef add(a: int, b: int):\n    \"\"\" Return a + b. CASE " + name + ".\n    \"\"\"\n",
		"canonical_solution": "    return a + b\n",
		"test":               "\n\ndef check(candidate):\n    assert candidate(2, 3) == 5\n\n",
		"entry_point":        "add",
	})
	return string(b)
}

// Hostile answers to loom eval's problems are contained: each problem's
// first sample fails with a class that says what happened and a message
// free of Go runtime text, its second (a correct answer, run after it)
// passes, the evaluation ends as one does, and no worker is left.
func TestLoomEvalContainsHostileAnswers(t *testing.T) {
	cases := evalCases()
	var mu sync.Mutex
	asked := map[string]int{}
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		var prompt string
		for _, m := range req.Messages {
			prompt += m.Content
		}
		for _, c := range cases {
			if strings.Contains(prompt, "CASE "+c.name+".") {
				mu.Lock()
				asked[c.name]++
				first := asked[c.name] == 1
				mu.Unlock()
				if first {
					return fakeopenai.Reply{Text: "```javascript\n" + c.answer + "\n```"}
				}
				return fakeopenai.Reply{Text: "```javascript\nfunction add(a, b) { return a + b }\n```"}
			}
		}
		return fakeopenai.Reply{Text: "no case in: " + prompt}
	})
	dir := t.TempDir()
	var problems []string
	for i, c := range cases {
		problems = append(problems, evalProblem(i, c.name))
	}
	file := filepath.Join(dir, "problems.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join(problems, "\n")+"\n"), 0o644))
	r := run(t, dir, env(dir, srv.BaseURL()), "", loom, "eval", "humaneval", "--humaneval", file, "--model", "openai:gpt-test",
		"--samples", "2", "--concurrency", "1", "--sandbox-timeout", longLimit, "--json")
	requireEndedAsARun(t, r, exitOK)
	var report struct {
		Results []struct {
			ID      string
			Passed  int
			Samples []struct {
				Class   string
				Message string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &report), r.stdout)
	require.Len(t, report.Results, len(cases))
	for _, res := range report.Results {
		i := strings.TrimPrefix(res.ID, "Hostile/")
		require.Len(t, i, 1, "a problem of the file: %s", res.ID)
		c := cases[i[0]-'0']
		t.Run(c.name, func(t *testing.T) {
			require.Len(t, res.Samples, 2)
			require.Equal(t, 1, res.Passed, "the correct answer after the hostile one passes: %+v", res.Samples)
			failed := res.Samples[0]
			if failed.Class == "passed" {
				failed = res.Samples[1]
			}
			require.Contains(t, c.classes, failed.Class, "the sample's class says what happened: %s", failed.Message)
			t.Logf("%s: %.300s", failed.Class, failed.Message)
			require.Less(t, len(failed.Message), 64<<10, "the message is bounded")
			for _, w := range goRuntimeText {
				require.NotContains(t, failed.Message, w)
			}
		})
	}
}
