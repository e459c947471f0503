package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
)

// BenchmarkOutputGuardrail is one AI turn streaming a 2 KB answer in 64
// deltas, without output guardrails and with the secrets deny-list:
// checked after streaming, holding the whole answer, or in 256-character
// windows.
//
//	go test ./agent -run '^$' -bench OutputGuardrail -benchtime 2000x -benchmem
func BenchmarkOutputGuardrail(b *testing.B) {
	turn := make([]model.Chunk, 0, 65)
	for range 64 {
		turn = append(turn, model.Chunk{TextDelta: "lorem ipsum dolor sit amet, " + strings.Repeat("x", 4)})
	}
	turn = append(turn, model.Chunk{Usage: &model.Usage{InputTokens: 20, OutputTokens: 500}, FinishReason: model.FinishStop})
	deny, err := agent.DenyList(agent.DenyListConfig{Mask: true})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name   string
		guards []agent.Guardrail
		hold   agent.OutputHold
	}{
		{"none", nil, agent.OutputHold{}},
		{"deny_list", []agent.Guardrail{deny}, agent.OutputHold{}},
		{"deny_list_hold", []agent.Guardrail{deny}, agent.OutputHold{On: true}},
		{"deny_list_window256", []agent.Guardrail{deny}, agent.OutputHold{Window: 256}},
	}
	in := json.RawMessage(`{"message":"hi"}`)
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			a := testkit.NewAI(b, agent.AIConfig{Name: "bench", Model: newCycle(turn), OutputGuardrails: tc.guards, OutputHold: tc.hold})
			for b.Loop() {
				if _, err := agent.Collect(a.Run(b.Context(), in)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
