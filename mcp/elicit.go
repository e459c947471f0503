package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
)

// ElicitationKind is the kind of the question ([agent.Question]) a tool's
// run asks when the server requests input during a call. The payload is
// [Elicitation]; the answer is an object {"action": "accept"|"decline"|
// "cancel", "content": {...}} whose content matches the requested schema.
const ElicitationKind = "mcp_elicitation"

// Elicitation is the payload of an [ElicitationKind] question.
type Elicitation struct {
	Tool    string          `json:"tool,omitempty"`
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"schema,omitempty"` // the schema of the content asked for
	URL     string          `json:"url,omitempty"`    // URL-mode elicitation: where to go
}

// elicitation is one server request handed to the call it belongs to.
type elicitation struct {
	params *sdk.ElicitParams
	reply  chan elicitAnswer
}

type elicitAnswer struct {
	res *sdk.ElicitResult
	err error
}

// onElicit hands an elicitation request to the call in flight, whose run
// asks it. With no call or several in flight, it cannot tell whose it is
// and declines.
func (ts *Toolset) onElicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	ts.mu.Lock()
	var c *call
	n := len(ts.calls)
	for _, cc := range ts.calls {
		c = cc
	}
	ts.mu.Unlock()
	if n != 1 {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	e := &elicitation{params: req.Params, reply: make(chan elicitAnswer, 1)}
	select {
	case c.elicit <- e:
	case <-c.done:
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case a := <-e.reply:
		return a.res, a.err
	case <-c.done:
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ask asks the run's person for the server's request and returns their
// answer as the result for the server, or the run's interruption.
func ask(ctx context.Context, toolName string, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	q := Elicitation{Tool: toolName, Message: p.Message, URL: p.URL}
	content := json.RawMessage(`{"type":"object"}`)
	if p.RequestedSchema != nil {
		b, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("mcp: encode the requested schema: %w", err)
		}
		q.Schema, content = b, b
	}
	schema := json.RawMessage(`{"type":"object","properties":{"action":{"enum":["accept","decline","cancel"]},"content":` + string(content) + `},"required":["action"]}`)
	answer, err := agent.Ask(ctx, ElicitationKind, q, schema)
	if err != nil {
		return nil, err
	}
	var res sdk.ElicitResult
	if err := json.Unmarshal(answer, &res); err != nil {
		return nil, fmt.Errorf("mcp: the answer to an elicitation is not {\"action\", \"content\"}: %w", err)
	}
	return &res, nil
}
