// Package fakeopenai is a local server speaking the OpenAI Chat Completions
// wire format (streamed Server-Sent Events, tool calls in pieces, a usage
// chunk, "data: [DONE]"), for testing the examples end to end as a user
// runs them: point OPENAI_BASE_URL at Server.BaseURL.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Message is one message of a request, as sent on the wire.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"-"`
	ToolCalls  []ToolCall `json:"-"`
	ToolCallID string     `json:"tool_call_id"`
}

// ToolCall is a tool call, in a reply or in a request's assistant message.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Request is a request the server received.
type Request struct {
	Index    int            // from 0
	Body     map[string]any // the JSON body
	Messages []Message
	Tools    []string // the names of the tools offered
}

// Last returns the request's last message.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Reply is the server's answer to one request: text, tool calls, or an
// HTTP error status.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	Status    int    // an error status, as 500; 0 streams the reply
	Error     string // the error message with Status
	Finish    string // the finish_reason, as "length"; "" for stop or tool_calls
}

// Server is a fake Chat Completions endpoint.
type Server struct {
	srv    *httptest.Server
	reply  func(Request) Reply
	mu     sync.Mutex
	reqs   []Request
	forget bool
}

// New starts a server answering each request with reply; it stops when the
// test ends.
func New(t testing.TB, reply func(Request) Reply) *Server {
	s := &Server{reply: reply}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// Handler returns the endpoint as a handler, for a standalone server; it
// keeps no record of the requests.
func Handler(reply func(Request) Reply) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(&Server{reply: reply, forget: true}).serve(w, r)
	})
}

// BaseURL is the API root to set as OPENAI_BASE_URL.
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, fmt.Sprintf("unexpected %s %s", r.Method, r.URL.Path), http.StatusNotFound)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		writeError(w, http.StatusUnauthorized, "missing bearer key")
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, err := parse(raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.forget {
		s.mu.Lock()
		req.Index = len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
	}
	rep := s.reply(req)
	if rep.Status != 0 {
		writeError(w, rep.Status, rep.Error)
		return
	}
	stream(w, rep)
}

func parse(raw []byte) (Request, error) {
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return Request{}, fmt.Errorf("body is not JSON: %w", err)
	}
	var wire struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		return Request{}, fmt.Errorf("body is not a chat completions request: %w", err)
	}
	req := Request{Body: body}
	for _, m := range wire.Messages {
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID, Content: content(m.Content)}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range wire.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	return req, nil
}

// content reads a message's content: a string or an array of text parts.
func content(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	w.Write(b)
}

// stream writes rep as OpenAI streams it.
func stream(w http.ResponseWriter, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	chunk := func(choices string, usage string) {
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1730000000,\"model\":\"gpt-5.4-mini\",\"choices\":[%s],\"usage\":%s}\n\n", choices, usage)
		flush()
	}
	delta := func(d string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return fmt.Sprintf(`{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}`, d, f)
	}
	chunk(delta(`{"role":"assistant","content":""}`, ""), "null")
	for _, piece := range pieces(rep.Text) {
		chunk(delta(`{"content":`+str(piece)+`}`, ""), "null")
	}
	for i, tc := range rep.ToolCalls {
		half := len(tc.Arguments) / 2
		chunk(delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}]}`, i, str(tc.ID), str(tc.Name), str(tc.Arguments[:half])), ""), "null")
		chunk(delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, str(tc.Arguments[half:])), ""), "null")
	}
	finish := "stop"
	switch {
	case rep.Finish != "":
		finish = rep.Finish
	case len(rep.ToolCalls) > 0:
		finish = "tool_calls"
	}
	chunk(delta(`{}`, finish), "null")
	chunk("", `{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}`)
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush()
}

// pieces splits text into word-sized pieces, as a model streams.
func pieces(text string) []string {
	var ps []string
	for len(text) > 0 {
		i := strings.IndexByte(text[1:], ' ')
		if i < 0 {
			ps = append(ps, text)
			break
		}
		ps = append(ps, text[:i+1])
		text = text[i+1:]
	}
	return ps
}

func str(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ToolResults returns the contents of the tool messages of req, in order.
func (r Request) ToolResults() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}
