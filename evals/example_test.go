package evals_test

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

func ExamplePassAtK() {
	// 10 samples of a problem, 3 of them correct
	for _, k := range []int{1, 5} {
		p, _ := evals.PassAtK(10, 3, k)
		fmt.Printf("pass@%d = %.3f\n", k, p)
	}
	// Output:
	// pass@1 = 0.300
	// pass@5 = 0.917
}

func ExampleTranslate() {
	p, err := evals.Translate(evals.HumanEvalTask{
		TaskID:     "Mine/0",
		Prompt:     "def add_two(x: int) -> int:\n    \"\"\" Return x + 2. \"\"\"\n",
		Test:       "def check(candidate):\n    assert candidate(1) == 3\n    assert abs(candidate(0.5) - 2.5) < 1e-9\n",
		EntryPoint: "add_two",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(p.Prompt)
	fmt.Println(p.Tests)
	// Output:
	// /**
	//  * Return x + 2.
	//  */
	// function addTwo(x) {
	// assert.deepStrictEqual(candidate(1), 3, "assert candidate(1) == 3");
	// assert.ok(__py.truthy((Math.abs((candidate(0.5) - 2.5)) < 1e-9)), "assert abs(candidate(0.5) - 2.5) < 1e-9");
}

func ExampleRun() {
	problems := []evals.Problem{{
		ID:         "Mine/0",
		EntryPoint: "addTwo",
		Prompt:     "function addTwo(x) {\n",
		Tests:      "assert.strictEqual(candidate(1), 3);",
	}}
	// a scripted model stands in for a real one
	m := modeltest.New(nil, modeltest.Text("```javascript\nfunction addTwo(x) { return x + 2; }\n```"))
	solver, _ := agent.NewAI(agent.AIConfig{Name: "solver", Model: m})
	exec, _ := sandbox.NewInProcess(sandbox.InProcessConfig{})
	defer exec.Close()

	rep, err := evals.Run(context.Background(), problems, evals.Config{Solver: solver, Executor: exec})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("pass@1 %.2f, %s\n", rep.PassAt[1], rep.Results[0].Samples[0].Class)
	// Output: pass@1 1.00, passed
}

func ExampleTask_Verify() {
	tasks, _ := evals.Tasks()
	t := tasks[0]
	ok, _ := t.Verify("The sum is 233,168.")
	fmt.Println(t.ID, ok)
	// Output: arith/multiples-3-5 true
}
