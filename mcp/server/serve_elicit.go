package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/mcp"
)

// mrtrVersion is the first protocol version whose clients answer a
// server's questions by calling again (multi-round-trip requests: an
// input-required result, then a call carrying the answers). Clients of
// older versions answer elicitation requests sent during the call.
const mrtrVersion = "2026-07-28"

// multiRoundTrip reports whether ss's client answers questions by calling
// again rather than through requests sent during the call.
func multiRoundTrip(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= mrtrVersion
}

// canElicit reports whether ss's client declared the elicitation
// capability.
func canElicit(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// asked is one question of a run put as an elicitation: the request, and
// how the client's content becomes the run's answer.
type asked struct {
	q       agent.Question
	params  *sdk.ElicitParams
	wrapped bool // the question's schema is not an object: the answer is content.answer
}

// elicitFor puts q as an elicitation request. The message is for a person:
// the question's prompt and what it shows, never run ids or its raw JSON.
// An MCP elicitation a served agent's own tool received ([mcp.ElicitationKind])
// is passed on as it came.
func elicitFor(q agent.Question) (*asked, error) {
	if q.Kind == mcp.ElicitationKind {
		var e mcp.Elicitation
		if err := json.Unmarshal(q.Payload, &e); err != nil {
			return nil, fmt.Errorf("a question of kind %s has a payload that is not an elicitation: %w", q.Kind, err)
		}
		p := &sdk.ElicitParams{Message: e.Message, URL: e.URL}
		if e.URL != "" {
			p.Mode = "url"
		} else {
			p.Mode = "form"
			var s any = map[string]any{"type": "object"}
			if len(e.Schema) > 0 {
				if err := json.Unmarshal(e.Schema, &s); err != nil {
					return nil, fmt.Errorf("the elicitation's schema is not JSON: %w", err)
				}
			}
			p.RequestedSchema = s
		}
		return &asked{q: q, params: p}, nil
	}
	a := &asked{q: q, params: &sdk.ElicitParams{Mode: "form", Message: questionText(q)}}
	var schema map[string]any
	if len(q.Schema) > 0 {
		if err := json.Unmarshal(q.Schema, &schema); err != nil {
			return nil, fmt.Errorf("%s question: its answer schema is not a JSON object: %w", q.Kind, err)
		}
	}
	switch {
	case schema == nil:
		a.wrapped = true
		schema = map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string", "title": "Answer"}}, "required": []string{"answer"}}
	case schema["type"] != "object":
		a.wrapped = true
		schema = map[string]any{"type": "object", "properties": map[string]any{"answer": schema}, "required": []string{"answer"}}
	}
	a.params.RequestedSchema = schema
	return a, nil
}

// answer turns the client's reply into the run's answer. For a passed-on
// elicitation every action is an answer; otherwise only accept is, and a
// decline or cancel is reported as an error naming the question.
func (a *asked) answer(res *sdk.ElicitResult) (json.RawMessage, error) {
	if a.q.Kind == mcp.ElicitationKind {
		return json.Marshal(map[string]any{"action": res.Action, "content": res.Content})
	}
	if res.Action != "accept" {
		return nil, fmt.Errorf("the question %q was not answered (the user chose %s); call the tool again to be asked again", a.params.Message, res.Action)
	}
	if a.wrapped {
		v, ok := res.Content["answer"]
		if !ok {
			return nil, fmt.Errorf("the answer to %q has no \"answer\" field", a.params.Message)
		}
		return json.Marshal(v)
	}
	return json.Marshal(res.Content)
}

// questionText is what a person reads for q: its prompt or message, the
// code it asks to approve, and any other fields of its payload, one a line.
func questionText(q agent.Question) string {
	var p any
	if len(q.Payload) > 0 {
		_ = json.Unmarshal(q.Payload, &p)
	}
	var b strings.Builder
	switch p := p.(type) {
	case string:
		b.WriteString(p)
	case map[string]any:
		lead := ""
		for _, k := range []string{"prompt", "message", "question", "task"} {
			if s, ok := p[k].(string); ok && s != "" {
				lead, p = s, without(p, k)
				break
			}
		}
		if code, ok := p["code"].(string); ok {
			if lead == "" {
				lead = "Approve running this code?"
			} else {
				lead = "Approve running this code for: " + lead
			}
			b.WriteString(lead)
			b.WriteString("\n\n" + code)
			p = without(p, "code")
		} else {
			b.WriteString(lead)
		}
		if st, ok := p["state"].(map[string]any); ok {
			// A graph's human node shows parts of its state.
			p = without(p, "state")
			for k, v := range st {
				p[k] = v
			}
		}
		writeFields(&b, p)
	}
	if b.Len() == 0 {
		return "Please answer (" + q.Kind + ")."
	}
	return b.String()
}

func without(m map[string]any, k string) map[string]any {
	out := make(map[string]any, len(m))
	for kk, v := range m {
		if kk != k {
			out[kk] = v
		}
	}
	return out
}

// writeFields writes m's fields as "key: value" lines, nested objects
// flattened ("state.x: 1"), in key order.
func writeFields(b *strings.Builder, m map[string]any) {
	var lines []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, vv := range v {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, vv)
			}
		case nil:
		case string:
			if v != "" {
				lines = append(lines, prefix+": "+v)
			}
		default:
			s, _ := json.Marshal(v)
			lines = append(lines, prefix+": "+string(s))
		}
	}
	walk("", m)
	sort.Strings(lines)
	for _, l := range lines {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(l)
	}
}

// unanswerable is the tool error for questions a client cannot be asked:
// it names what was asked.
func unanswerable(name string, qs []*asked, why string) *sdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%s needs an answer that this client cannot give (%s). It asked:", name, why)
	for _, a := range qs {
		b.WriteString("\n- " + strings.ReplaceAll(a.params.Message, "\n", "\n  "))
	}
	b.WriteString("\nUse a client that supports MCP elicitation to answer it.")
	return errorResult(b.String())
}

// elicitAll asks the client every question of qs, in turn, during the
// call, and returns the answers by question id.
func elicitAll(ctx context.Context, ss *sdk.ServerSession, qs []*asked) (map[string]json.RawMessage, error) {
	answers := make(map[string]json.RawMessage, len(qs))
	for _, a := range qs {
		res, err := ss.Elicit(ctx, a.params)
		if err != nil {
			return nil, fmt.Errorf("asking %q: %w", a.params.Message, err)
		}
		ans, err := a.answer(res)
		if err != nil {
			return nil, err
		}
		answers[a.q.ID] = ans
	}
	return answers, nil
}

// inputRequests puts the questions as the elicitation requests of an
// input-required result, keyed by question id, for clients that answer by
// calling again.
func inputRequests(qs []*asked) sdk.InputRequestMap {
	m := make(sdk.InputRequestMap, len(qs))
	for _, a := range qs {
		m[a.q.ID] = a.params
	}
	return m
}

// answersFrom turns the responses of a call made again into answers by
// question id, the questions rebuilt from the waiting run's.
func answersFrom(qs []*asked, responses sdk.InputResponseMap) (map[string]json.RawMessage, error) {
	answers := make(map[string]json.RawMessage, len(responses))
	for _, a := range qs {
		r, ok := responses[a.q.ID]
		if !ok {
			continue
		}
		res, ok := r.(*sdk.ElicitResult)
		if !ok {
			return nil, fmt.Errorf("the response to %q is not an elicitation result", a.params.Message)
		}
		ans, err := a.answer(res)
		if err != nil {
			return nil, err
		}
		answers[a.q.ID] = ans
	}
	if len(answers) == 0 {
		return nil, errors.New("the call carries no answers to the questions asked")
	}
	return answers, nil
}

// seal makes the request state for a waiting run: its root id and the
// questions asked, with a MAC, so a client can only resume the runs this
// server asked it about.
func (s *Server) seal(st requestState) string {
	b, _ := json.Marshal(st)
	body := base64.RawURLEncoding.EncodeToString(b)
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// requestState is what a call made again carries back.
type requestState struct {
	Root      string           `json:"r"`
	Questions []agent.Question `json:"q"`
}

// unseal returns the request state made by seal.
func (s *Server) unseal(state string) (requestState, error) {
	var st requestState
	i := strings.LastIndexByte(state, '.')
	if i < 0 {
		return st, errors.New("the request state is not one this server gave out")
	}
	body := state[:i]
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(body))
	if !hmac.Equal([]byte(base64.RawURLEncoding.EncodeToString(m.Sum(nil))), []byte(state[i+1:])) {
		return st, errors.New("the request state is not one this server gave out")
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		return st, errors.New("the request state is not one this server gave out")
	}
	return st, nil
}
