package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/openai"
	"github.com/stretchr/testify/require"
)

// reply is one scripted answer of the fake OpenAI server.
type reply struct {
	status int               // an HTTP error status, or 0 for a streamed answer
	header map[string]string // headers of an error answer
	text   string
	calls  []model.ToolCall
}

func textReply(s string) reply { return reply{text: s} }

func callsReply(calls ...model.ToolCall) reply { return reply{calls: calls} }

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// fakeOpenAI is a Chat Completions server speaking OpenAI's wire format
// (SSE chunks, a usage chunk, [DONE]) that plays scripted replies in order
// and records the request bodies.
type fakeOpenAI struct {
	t       testing.TB
	srv     *httptest.Server
	mu      sync.Mutex
	script  []reply
	request []map[string]any
	// next, when set, makes the reply of a request not in the script.
	next func(req map[string]any) reply
}

func newFakeOpenAI(t testing.TB, script ...reply) *fakeOpenAI {
	f := &fakeOpenAI{t: t, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.request = append(f.request, req)
	var rep reply
	switch {
	case len(f.script) > 0:
		rep, f.script = f.script[0], f.script[1:]
	case f.next != nil:
		rep = f.next(req)
	default:
		f.mu.Unlock()
		http.Error(w, `{"error":{"message":"script exhausted","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	f.mu.Unlock()
	if rep.status != 0 {
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		fmt.Fprintf(w, `{"error":{"message":"scripted HTTP %d","type":"scripted","code":null,"param":null}}`, rep.status)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	data := func(v string) { fmt.Fprintf(w, "data: %s\n\n", v) }
	chunk := func(choice string) {
		data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","choices":[` + choice + `],"usage":null}`)
	}
	chunk(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}`)
	finish := "stop"
	if rep.text != "" {
		s, _ := json.Marshal(rep.text)
		chunk(`{"index":0,"delta":{"content":` + string(s) + `},"finish_reason":null}`)
	}
	for i, c := range rep.calls {
		args, _ := json.Marshal(string(c.Arguments))
		chunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":null}`, i, c.ID, c.Name, args))
		finish = "tool_calls"
	}
	chunk(`{"index":0,"delta":{},"finish_reason":"` + finish + `"}`)
	data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`)
	data("[DONE]")
}

// requests returns the request bodies received so far.
func (f *fakeOpenAI) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.request...)
}

// factory is the worker-side factory of the model the fake serves, with
// the SDK's retries off.
func (f *fakeOpenAI) factory() func(context.Context) (model.Model, error) {
	return func(context.Context) (model.Model, error) {
		return openai.New("gpt-test", model.WithAPIKey("sk-test-key"), model.WithBaseURL(f.srv.URL+"/v1"), model.WithMaxRetries(0))
	}
}

// lastUserText returns the text of the last user message of a request.
func lastUserText(req map[string]any) string {
	msgs, _ := req["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			if s, ok := m["content"].(string); ok {
				return s
			}
			b, _ := json.Marshal(m["content"])
			return string(b)
		}
	}
	return ""
}

func requireRole(t *testing.T, req map[string]any, i int, role string) {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	require.Greater(t, len(msgs), i)
	m, _ := msgs[i].(map[string]any)
	require.Equal(t, role, m["role"], "message %d of %s", i, strings.TrimSpace(fmt.Sprint(msgs)))
}
