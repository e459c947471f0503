package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
)

// BenchmarkGuardedToolCall is one call of a Func tool with a 2 KB code
// argument behind two Before guardrails, run on its own: the cost of
// checking, decoding and guarding a tool's arguments.
//
//	go test ./agent -run '^$' -bench GuardedToolCall -benchmem
func BenchmarkGuardedToolCall(b *testing.B) {
	type args struct {
		Code string `json:"code"`
	}
	fn, err := agent.NewFunc("run", "Runs code.", func(_ context.Context, in args) (int, error) {
		return len(in.Code), nil
	})
	if err != nil {
		b.Fatal(err)
	}
	pass := func(name string) agent.Guardrail {
		return agent.Guardrail{Name: name, Check: func(context.Context, agent.GuardInput) (agent.Verdict, error) {
			return agent.Allow(), nil
		}}
	}
	guarded, err := agent.GuardTool(fn, agent.ToolGuards{Before: []agent.Guardrail{pass("review"), pass("approve")}})
	if err != nil {
		b.Fatal(err)
	}
	code := strings.Repeat(`const xs = [1, 2, 3].map((x) => x * 2); console.log("xs", xs);\n`, 32)
	in, err := json.Marshal(map[string]string{"code": code})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := agent.Collect(guarded.Run(b.Context(), in)); err != nil {
			b.Fatal(err)
		}
	}
}
