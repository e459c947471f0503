package codeexec_test

import (
	"context"
	"iter"
	"runtime"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

// cycleModel is an instant model that records nothing: it calls the
// sandbox tool when the last message is the user's, and answers once the
// tool's result is in. Safe for concurrent use.
type cycleModel struct {
	call   model.ToolCall
	answer string
}

func (cycleModel) Provider() string { return "bench" }
func (cycleModel) Name() string     { return "cycle" }

func (m cycleModel) Stream(_ context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		u := &model.Usage{InputTokens: 100, OutputTokens: 20}
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			if yield(model.Chunk{TextDelta: m.answer}, nil) {
				yield(model.Chunk{Usage: u, FinishReason: model.FinishStop}, nil)
			}
			return
		}
		d := &model.ToolCallDelta{ID: m.call.ID, Name: m.call.Name, ArgumentsDelta: string(m.call.Arguments)}
		if yield(model.Chunk{ToolCall: d}, nil) {
			yield(model.Chunk{Usage: u, FinishReason: model.FinishToolCalls}, nil)
		}
	}
}

// benchSandboxes are the sandbox tools the workflow benchmark runs on: a
// Go function (the workflow's own cost), the in-process goja executor and
// the isolated worker-process executor.
func benchSandboxes(b *testing.B) []namedSandbox {
	sb := &fakeSandbox{results: map[string]any{factorial: "1307674368000"}}
	in, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	iso, err := sandbox.NewIsolated(sandbox.IsolatedConfig{Concurrency: runtime.GOMAXPROCS(0)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); iso.Close() })
	return []namedSandbox{{"func", sb.agentTB(b)}, {"inprocess", tool(b, in)}, {"isolated", tool(b, iso)}}
}

type namedSandbox struct {
	name string
	tool agent.Agent
}

func tool(b *testing.B, e sandbox.Executor) agent.Agent {
	t, err := jstool.New(e, jstool.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return t
}

const factorial = "let f = 1n; for (let i = 2n; i <= 15n; i++) f *= i; String(f)"

func benchWorkflow(b *testing.B, sandbox agent.Agent) (*engine.Engine, *codeexec.CodeExecution) {
	m := cycleModel{call: jsCall("call_1", factorial), answer: "15! = 1307674368000"}
	ce, err := codeexec.New(codeexec.Config{Tool: sandbox})
	if err != nil {
		b.Fatal(err)
	}
	return engine.New(engine.Config{Model: m}), ce
}

// BenchmarkCodeExecution is one whole Coder→Sandbox→Coder workflow: two
// model calls, one sandbox run.
func BenchmarkCodeExecution(b *testing.B) {
	for _, sb := range benchSandboxes(b) {
		b.Run(sb.name, func(b *testing.B) {
			e, ce := benchWorkflow(b, sb.tool)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := e.Invoke(ctx, ce, "Calculate 15!")
				if err != nil || res.Text() != "15! = 1307674368000" || res.Invocations != 3 {
					b.Fatal(err, res)
				}
			}
		})
		b.Run(sb.name+"-parallel", func(b *testing.B) {
			e, ce := benchWorkflow(b, sb.tool)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					if _, err := e.Invoke(ctx, ce, "Calculate 15!"); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
