package evals

import (
	"context"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

// BenchmarkRunInstantModel is the harness's cost per sample with a model
// that answers at once: the solver's run, the extraction and the sandbox
// run of the reference solution with its tests (in process). One op is the
// 25 hand-written problems.
func BenchmarkRunInstantModel(b *testing.B) {
	probs, ref := loadHandwritten(b)
	ex, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer ex.Close()
	answer := func(req model.Request) modeltest.Turn {
		prompt := req.Messages[len(req.Messages)-1].Text()
		for _, p := range probs {
			if strings.Contains(prompt, "function "+p.EntryPoint+"(") {
				return modeltest.Text("```javascript\n" + ref[p.ID] + "\n```")
			}
		}
		return modeltest.Text("")
	}
	m := modeltest.New(b)
	solver, err := agent.NewAI(agent.AIConfig{Name: "solver", Model: m})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for range probs {
			m.Append(modeltest.Func(answer))
		}
		b.StartTimer()
		rep, err := Run(context.Background(), probs, Config{Solver: solver, Executor: ex, Concurrency: 2})
		if err != nil || rep.PassAt[1] != 1 {
			b.Fatalf("pass@1 %v, %v", rep.PassAt[1], err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(probs)), "µs/sample")
}

// BenchmarkSandboxCheck is the sandbox run alone: shim, prelude, solution
// and tests of one problem.
func BenchmarkSandboxCheck(b *testing.B) {
	probs, ref := loadHandwritten(b)
	ex, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer ex.Close()
	prog := probs[6].Program(ref[probs[6].ID]) // wordCounts
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ex.Run(context.Background(), prog); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranslate translates the 25 hand-written problems.
func BenchmarkTranslate(b *testing.B) {
	tasks := handwrittenTasks(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TranslateAll(tasks); err != nil {
			b.Fatal(err)
		}
	}
}
