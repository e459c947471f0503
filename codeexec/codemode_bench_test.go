package codeexec_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

// threeTools is the toolset of the three-tool task: add, multiply, then
// format the product.
func threeTools(b *testing.B) agent.Toolset {
	type pair struct {
		A float64 `json:"a" jsonschema:"description=The first operand."`
		B float64 `json:"b" jsonschema:"description=The second operand."`
	}
	type num struct {
		N float64 `json:"n" jsonschema:"description=The number to format."`
	}
	add, err := agent.NewFunc("add", "Adds a and b.", func(_ context.Context, in pair) (map[string]float64, error) {
		return map[string]float64{"sum": in.A + in.B}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	mul, err := agent.NewFunc("multiply", "Multiplies a by b.", func(_ context.Context, in pair) (map[string]float64, error) {
		return map[string]float64{"product": in.A * in.B}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	format, err := agent.NewFunc("format", "Formats a number for people.", func(_ context.Context, in num) (map[string]string, error) {
		return map[string]string{"text": "the answer is " + json.Number(fmtNum(in.N)).String()}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return []agent.Agent{add, mul, format}, nil })
}

func fmtNum(f float64) string {
	out, _ := json.Marshal(f)
	return string(out)
}

// requestBytes is what a model reads: the JSON of each request's messages
// and tool declarations, summed over the run's requests.
func requestBytes(reqs []model.Request) int {
	n := 0
	for _, r := range reqs {
		m, _ := json.Marshal(r.Messages)
		t, _ := json.Marshal(r.Tools)
		n += len(m) + len(t)
	}
	return n
}

// BenchmarkThreeToolTask compares a task that needs three dependent tool
// calls ((2 + 40) × 3, then formatted) done by the coder calling the tools
// directly, one model turn each, with code mode, where one snippet makes
// the three calls. The scripted model gives the same answers both ways;
// the metrics are the model calls and the bytes of the requests (messages
// and tool declarations as JSON; about four bytes a token).
func BenchmarkThreeToolTask(b *testing.B) {
	ip, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	snippet := `const s = await tools.add({a: 2, b: 40});
const p = await tools.multiply({a: s.sum, b: 3});
(await tools.format({n: p.product})).text`
	for _, mode := range []struct {
		name  string
		turns func() []modeltest.Turn
		cfg   func(ts agent.Toolset) codeexec.Config
	}{
		{"direct", func() []modeltest.Turn {
			return []modeltest.Turn{
				modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":2,"b":40}`)),
				modeltest.ToolCalls(modeltest.Call("c2", "multiply", `{"a":42,"b":3}`)),
				modeltest.ToolCalls(modeltest.Call("c3", "format", `{"n":126}`)),
				modeltest.Text("The answer is 126."),
			}
		}, func(ts agent.Toolset) codeexec.Config {
			return codeexec.Config{Sandbox: ip, Toolsets: []agent.Toolset{ts}}
		}},
		{"code-mode", func() []modeltest.Turn {
			return []modeltest.Turn{modeltest.ToolCalls(jsCall("c1", snippet)), modeltest.Text("The answer is 126.")}
		}, func(ts agent.Toolset) codeexec.Config {
			return codeexec.Config{Sandbox: ip, SandboxTools: []agent.Toolset{ts}}
		}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			ts := threeTools(b)
			var calls, bytes int
			for b.Loop() {
				m := modeltest.New(b, mode.turns()...)
				cfg := mode.cfg(ts)
				cfg.Model = m
				ce, err := codeexec.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				res, err := engine.New(engine.Config{}).Invoke(b.Context(), ce, "What is (2 + 40) × 3? Format the result.")
				if err != nil || res.Text() != "The answer is 126." {
					b.Fatal(err, res.Text())
				}
				calls, bytes = m.Calls(), requestBytes(m.Requests())
			}
			b.ReportMetric(float64(calls), "model-calls")
			b.ReportMetric(float64(bytes), "request-bytes")
		})
	}
}
