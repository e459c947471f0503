package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
)

// inputRequests turns the questions a run waits for into elicitation
// requests keyed by question id, for an input-required result (the
// multi-round-trip requests of MCP; the SDK sends them as elicitation
// requests to clients of older protocol versions).
func inputRequests(qs []agent.Question) (sdk.InputRequestMap, error) {
	m := make(sdk.InputRequestMap, len(qs))
	for _, q := range qs {
		var schema any = map[string]any{"type": "object"}
		if len(q.Schema) > 0 {
			if err := json.Unmarshal(q.Schema, &schema); err != nil {
				return nil, fmt.Errorf("question %s: its schema is not JSON: %w", q.ID, err)
			}
		}
		msg := fmt.Sprintf("%s asks (%s): %s", q.RunID, q.Kind, q.Payload)
		m[q.ID] = &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
	}
	return m, nil
}

// answersFrom turns the client's responses into answers by question id. A
// declined or cancelled request is an error: the run keeps waiting.
func answersFrom(responses sdk.InputResponseMap) (map[string]json.RawMessage, error) {
	answers := make(map[string]json.RawMessage, len(responses))
	for id, r := range responses {
		res, ok := r.(*sdk.ElicitResult)
		if !ok {
			return nil, fmt.Errorf("question %s: the response is a %T, not an elicitation result", id, r)
		}
		if res.Action != "accept" {
			return nil, fmt.Errorf("question %s: the user chose %q; the run still waits for an answer", id, res.Action)
		}
		b, err := json.Marshal(res.Content)
		if err != nil {
			return nil, fmt.Errorf("question %s: encode the answer: %w", id, err)
		}
		answers[id] = b
	}
	return answers, nil
}

// seal makes the request state for run id: the id and its MAC, so a client
// can only resume the runs this server asked it about.
func (s *Server) seal(id string) string {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(id))
	return id + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// unseal returns the run id of a request state made by seal.
func (s *Server) unseal(state string) (string, error) {
	i := strings.LastIndexByte(state, '.')
	if i < 0 || !hmac.Equal([]byte(s.seal(state[:i])), []byte(state)) {
		return "", fmt.Errorf("the request state is not one this server gave out")
	}
	return state[:i], nil
}
