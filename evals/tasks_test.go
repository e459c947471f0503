package evals

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

func TestTasksData(t *testing.T) {
	ts, err := Tasks()
	require.NoError(t, err)
	require.Len(t, ts, 40)
	kinds := map[string]int{}
	ids := map[string]bool{}
	for _, tk := range ts {
		require.False(t, ids[tk.ID], "duplicate id %s", tk.ID)
		ids[tk.ID] = true
		kinds[tk.Kind]++
		require.Contains(t, []string{"number", "exact", "json"}, tk.Check, tk.ID)
		require.NotEmpty(t, tk.Prompt, tk.ID)
		require.True(t, json.Valid(tk.Answer), tk.ID)
		require.NotContains(t, strings.ToLower(tk.Prompt), "today", "%s: answers must not depend on the date", tk.ID)
	}
	for _, k := range []string{"arithmetic", "dates", "strings", "lists", "async", "json"} {
		require.GreaterOrEqual(t, kinds[k], 4, k)
	}
}

// reply is how a model might end its answer for the task.
func reply(tk Task) string {
	ans := string(tk.Answer)
	if tk.Check == "exact" {
		var s string
		_ = json.Unmarshal(tk.Answer, &s)
		ans = "**" + s + "**"
	}
	if tk.Check == "json" {
		ans = "```json\n" + ans + "\n```"
	}
	return "I ran the code; the sandbox returned the value below.\n\n" + ans
}

func TestTasksScoreOneWithCorrectAnswers(t *testing.T) {
	ts, err := Tasks()
	require.NoError(t, err)
	byPrompt := map[string]Task{}
	for _, tk := range ts {
		byPrompt[tk.Prompt] = tk
	}
	solver, _ := newSolver(t, len(ts), func(prompt string) modeltest.Turn {
		i := strings.Index(prompt, "Task: ")
		require.GreaterOrEqual(t, i, 0)
		return modeltest.Text(reply(byPrompt[prompt[i+len("Task: "):]])).WithUsage(50, 10)
	})
	rep, err := RunTasks(context.Background(), ts, Config{Solver: solver, Concurrency: 3})
	require.NoError(t, err)
	for _, r := range rep.Results {
		require.Equal(t, 1, r.Passed, "%s: %s", r.ID, r.Samples[0].Message)
	}
	require.Equal(t, 1.0, rep.PassAt[1])
	require.Equal(t, "loom-tasks", rep.Dataset)
}

func TestTaskVerify(t *testing.T) {
	num := Task{Check: "number", Answer: json.RawMessage(`12586269025`)}
	money := Task{Check: "number", Answer: json.RawMessage(`1628.89`), Tolerance: 0.005}
	exact := Task{Check: "exact", Answer: json.RawMessage(`"Wednesday"`)}
	js := Task{Check: "json", Answer: json.RawMessage(`{"even":[2,8],"odd":[1]}`)}
	tests := []struct {
		name  string
		task  Task
		reply string
		ok    bool
		msg   string
	}{
		{"number with commas", num, "F(50) = 12,586,269,025", true, ""},
		{"number last wins", num, "F(49) is 7778742049, F(50) is 12586269025.", true, ""},
		{"wrong number", num, "12586269024", false, "expected 12586269025, got 1.2586269024e+10"},
		{"no number", num, "I cannot tell", false, "found no number"},
		{"within tolerance", money, "$1628.894", true, ""},
		{"outside tolerance", money, "1628.80", false, "expected 1628.89"},
		{"exact last line", exact, "It falls on a\n`Wednesday`.", true, ""},
		{"exact wrong", exact, "wednesday", false, `expected "Wednesday", got "wednesday"`},
		{"json fenced", js, "```json\n{\"odd\": [1], \"even\": [2, 8]}\n```", true, ""},
		{"json inline", js, "Result: {\"even\":[2,8],\"odd\":[1]} as asked", true, ""},
		{"json wrong", js, "{\"even\":[8,2],\"odd\":[1]}", false, "expected"},
		{"json missing", js, "no idea", false, "found no JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, msg := tc.task.Verify(tc.reply)
			require.Equal(t, tc.ok, ok, msg)
			require.Contains(t, msg, tc.msg)
		})
	}
}

func TestTasksWrongAnswers(t *testing.T) {
	ts, err := Tasks()
	require.NoError(t, err)
	ts = ts[:3]
	answers := []modeltest.Turn{modeltest.Text("42"), modeltest.Text(""), modeltest.Text("no idea")}
	var i int
	solver, _ := newSolver(t, 3, func(string) modeltest.Turn { i++; return answers[i-1] })
	rep, err := RunTasks(context.Background(), ts, Config{Solver: solver, Concurrency: 1})
	require.NoError(t, err)
	require.Equal(t, 0.0, rep.PassAt[1])
	require.Equal(t, WrongAnswer, rep.Results[0].Samples[0].Class)
	require.Equal(t, NoCode, rep.Results[1].Samples[0].Class)
	require.Equal(t, WrongAnswer, rep.Results[2].Samples[0].Class)
}

// TestTasksThroughTheWorkflow runs every task through the Coder→Sandbox
// workflow: the scripted coder runs a JavaScript solution written for the
// task in the sandbox and answers with the value the sandbox returned, so
// each task's recorded answer is checked against a second, independent
// computation.
func TestTasksThroughTheWorkflow(t *testing.T) {
	ts, err := Tasks()
	require.NoError(t, err)
	raw, err := os.ReadFile("testdata/task_solutions.json")
	require.NoError(t, err)
	var sol map[string]string
	require.NoError(t, json.Unmarshal(raw, &sol))
	byPrompt := map[string]Task{}
	for _, tk := range ts {
		byPrompt[tk.Prompt] = tk
	}
	turns := make([]modeltest.Turn, 2*len(ts))
	var calls atomic.Int64
	for i := range turns {
		turns[i] = modeltest.Func(func(req model.Request) modeltest.Turn {
			last := req.Messages[len(req.Messages)-1]
			if rs := last.ToolResults(); len(rs) > 0 {
				var out jstool.Output
				require.NoError(t, json.Unmarshal(rs[0].Content, &out), string(rs[0].Content))
				require.False(t, rs[0].IsError, string(rs[0].Content))
				return modeltest.Text("The sandbox computed:\n" + string(out.Result))
			}
			text := last.Text()
			tk := byPrompt[text[strings.Index(text, "Task: ")+len("Task: "):]]
			args, _ := json.Marshal(map[string]string{"code": sol[tk.ID]})
			return modeltest.ToolCalls(modeltest.Call(fmt.Sprintf("call_%d", calls.Add(1)), jstool.Name, string(args)))
		})
	}
	m := modeltest.New(t, turns...)
	ex, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	defer ex.Close()
	coder, err := codeexec.New(codeexec.Config{Model: m, Sandbox: ex})
	require.NoError(t, err)
	defer coder.Close()

	rep, err := RunTasks(context.Background(), ts, Config{Solver: coder, Concurrency: 4})
	require.NoError(t, err)
	for _, r := range rep.Results {
		require.Equal(t, 1, r.Passed, "%s: %s", r.ID, r.Samples[0].Message)
	}
	require.Equal(t, 1.0, rep.PassAt[1])
	require.Equal(t, 2*len(ts), m.Calls())
}
