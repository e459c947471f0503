package agent_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// longHistory is n earlier messages: user questions, assistant answers and
// now and then a tool call with its result, each about 100 bytes.
func longHistory(n int) []model.Message {
	msgs := make([]model.Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		q := "question " + strconv.Itoa(i) + ": " + strings.Repeat("what is the sum of these numbers? ", 2)
		msgs = append(msgs, model.UserMessage(q))
		if i%5 == 4 {
			id := "call_" + strconv.Itoa(i)
			msgs = append(msgs,
				model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{ID: id, Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}}},
				model.Message{Role: model.RoleTool, Parts: []model.Part{model.ToolResult{CallID: id, Name: "add", Content: json.RawMessage(`3`)}}},
			)
		}
		msgs = append(msgs, model.AssistantMessage("answer "+strconv.Itoa(i)+": "+strings.Repeat("the sum is three. ", 3)))
	}
	return msgs[:n]
}

// BenchmarkCapturedTurn is one AI-agent turn after a history of 10 or 1,000
// messages, untraced, traced without content and traced with content
// capture, under a tracer provider with no exporter: what recording the
// prompt costs the turn.
//
//	go test ./agent -run '^$' -bench CapturedTurn -benchmem
func BenchmarkCapturedTurn(b *testing.B) {
	in := json.RawMessage(`{"message":"hi"}`)
	for _, n := range []int{10, 1000} {
		hist := longHistory(n)
		for _, mode := range []string{"off", "spans", "capture"} {
			b.Run("history="+strconv.Itoa(n)+"/tracing="+mode, func(b *testing.B) {
				a := testkit.NewAI(b, agent.AIConfig{Name: "bench", Instructions: "You are terse.", Model: newCycle(textTurn)})
				ctx := agent.WithEnv(b.Context(), agent.Env{History: hist})
				if mode != "off" {
					tp := sdktrace.NewTracerProvider()
					defer tp.Shutdown(b.Context()) //nolint:errcheck // nothing to flush
					ctx = agentrt.WithContentCapture(agentrt.WithTracerProvider(ctx, tp), mode == "capture")
				}
				for b.Loop() {
					if _, err := agent.Collect(a.Run(ctx, in)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
