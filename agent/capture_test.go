package agent_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// referenceCapture is how captured messages were rendered before the
// encoding was bounded: the whole list encoded, then truncated.
func referenceCapture(msgs []model.Message) string {
	type part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		Response  json.RawMessage `json:"response,omitempty"`
		URL       string          `json:"url,omitempty"`
		MIMEType  string          `json:"mime_type,omitempty"`
	}
	type msg struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	valid := func(raw json.RawMessage) json.RawMessage {
		if len(raw) == 0 || json.Valid(raw) {
			return raw
		}
		b, _ := json.Marshal(string(raw))
		return b
	}
	out := make([]msg, 0, len(msgs))
	for _, m := range msgs {
		w := msg{Role: string(m.Role)}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case model.Text:
				w.Parts = append(w.Parts, part{Type: "text", Content: p.Text})
			case model.Image:
				w.Parts = append(w.Parts, part{Type: "image", URL: p.URL, MIMEType: p.MIMEType})
			case model.ToolCall:
				w.Parts = append(w.Parts, part{Type: "tool_call", ID: p.ID, Name: p.Name, Arguments: valid(p.Arguments)})
			case model.ToolResult:
				w.Parts = append(w.Parts, part{Type: "tool_call_response", ID: p.CallID, Name: p.Name, Response: valid(p.Content)})
			}
		}
		out = append(out, w)
	}
	b, _ := json.Marshal(out)
	return telemetry.Truncate(string(b))
}

// capturedChat runs an AI agent once after hist with content capture on and
// returns its chat span's attributes and the request the model received.
func capturedChat(t *testing.T, instructions string, hist []model.Message, answer string) (map[string]string, model.Request) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	m := modeltest.New(t, modeltest.Text(answer))
	a := testkit.NewAI(t, agent.AIConfig{Name: "chat", Instructions: instructions, Model: m})
	ctx := agentrt.WithContentCapture(agentrt.WithTracerProvider(agent.WithEnv(t.Context(), agent.Env{History: hist}), tp), true)
	_, err := agent.Invoke(ctx, a, "and now?")
	require.NoError(t, err)
	got := map[string]string{}
	for _, s := range rec.Ended() {
		if strings.HasPrefix(s.Name(), "chat ") {
			for _, kv := range s.Attributes() {
				got[string(kv.Key)] = kv.Value.AsString()
			}
		}
	}
	require.NotEmpty(t, got, "a chat span was recorded")
	return got, m.Request(0)
}

func split(msgs []model.Message) (sys, rest []model.Message) {
	for _, m := range msgs {
		if m.Role == model.RoleSystem {
			sys = append(sys, m)
		} else {
			rest = append(rest, m)
		}
	}
	return sys, rest
}

func TestCaptureSmallHistoriesAsBefore(t *testing.T) {
	odd := "quotes \" <tags> & \u2028 and é"
	for _, tc := range []struct {
		name         string
		instructions string
		hist         []model.Message
		answer       string
	}{
		{name: "no history", answer: "ok"},
		{name: "instructions", instructions: "You are terse.", answer: "ok"},
		{name: "every part", instructions: "Be " + odd, hist: []model.Message{
			model.UserMessage(odd),
			{Role: model.RoleUser, Parts: []model.Part{model.Image{URL: "https://example.com/a.png", MIMEType: "image/png"}}},
			{Role: model.RoleAssistant, Parts: []model.Part{model.Text{Text: "let me add"}, model.ToolCall{ID: "c1", Name: "add", Arguments: json.RawMessage(`{"a": 1, "b":2}`)}}},
			{Role: model.RoleTool, Parts: []model.Part{model.ToolResult{CallID: "c1", Name: "add", Content: json.RawMessage(`3`)}}},
			{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{ID: "c2", Name: "add", Arguments: json.RawMessage(`{broken`)}}},
			{Role: model.RoleTool, Parts: []model.Part{model.ToolResult{CallID: "c2", Name: "add", Content: json.RawMessage(`not json`)}}},
			{Role: model.RoleAssistant},
		}, answer: odd},
		{name: "just under the cap", hist: longHistory(60), answer: "ok"},
		{name: "one long message", hist: []model.Message{model.UserMessage(strings.Repeat("é", agentrt.MaxCapturedBytes))}, answer: strings.Repeat("x", agentrt.MaxCapturedBytes+10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, req := capturedChat(t, tc.instructions, tc.hist, tc.answer)
			sys, rest := split(req.Messages)
			if len(sys) > 0 {
				require.Equal(t, referenceCapture(sys), got["gen_ai.system_instructions"])
			} else {
				require.NotContains(t, got, "gen_ai.system_instructions")
			}
			if len(tc.hist) > 1 {
				require.Less(t, len(referenceCapture(rest)), agentrt.MaxCapturedBytes, "the history fits")
			}
			if len(tc.hist) == 1 {
				// One long message and the input: the input is kept, the
				// long message is left out whole.
				require.Equal(t, "…[truncated 1 earlier messages] "+referenceCapture(rest[1:]), got["gen_ai.input.messages"])
			} else {
				require.Equal(t, referenceCapture(rest), got["gen_ai.input.messages"])
			}
			require.Equal(t, referenceCapture([]model.Message{model.AssistantMessage(tc.answer)}), got["gen_ai.output.messages"],
				"a long answer is cut as before")
		})
	}
}

func TestCaptureLongHistoryKeepsTheNewestMessages(t *testing.T) {
	for _, n := range []int{200, 5000} {
		hist := longHistory(n)
		got, req := capturedChat(t, "", hist, "ok")
		_, rest := split(req.Messages)
		in := got["gen_ai.input.messages"]

		marker, arr, ok := strings.Cut(in, "] [")
		require.True(t, ok, "a marker, then the kept messages: %.80s", in)
		arr = "[" + arr
		require.True(t, json.Valid([]byte(arr)), "the kept messages are a whole JSON array")
		var kept []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(arr), &kept))
		require.LessOrEqual(t, len(arr), agentrt.MaxCapturedBytes)
		require.Equal(t, referenceCapture(rest[len(rest)-len(kept):]), arr, "the newest messages, encoded as before")
		require.Equal(t, "…[truncated "+strconv.Itoa(len(rest)-len(kept))+" earlier messages", marker)
		require.Greater(t, len(kept), 10)
		if len(kept) < len(rest) {
			next := referenceCapture(rest[len(rest)-len(kept)-1:])
			require.Greater(t, len(next), agentrt.MaxCapturedBytes, "one more message would not have fitted")
		}
	}
}
