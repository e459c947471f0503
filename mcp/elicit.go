package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
)

// ElicitationKind is the kind of the question ([agent.Question]) a tool's
// run asks when the server requests input during a call. The payload is
// [Elicitation]; the answer is an [ElicitAnswer] whose content matches the
// requested schema.
const ElicitationKind = "mcp_elicitation"

// DefaultAnswerTimeout is how long a call waits, when Config.AnswerTimeout
// is zero, for the answer to an elicitation its run stopped to ask.
const DefaultAnswerTimeout = 10 * time.Minute

// Elicitation is the payload of an [ElicitationKind] question, and what an
// [Elicitor] is asked.
type Elicitation struct {
	Tool    string          `json:"tool,omitempty"`
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"schema,omitempty"` // the schema of the content asked for
	URL     string          `json:"url,omitempty"`    // URL-mode elicitation: where to go
}

// ElicitAnswer is the answer to an elicitation.
type ElicitAnswer struct {
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content holds, with accept, the values asked for, matching the
	// requested schema.
	Content map[string]any `json:"content,omitempty"`
}

// Elicitor answers a server's elicitation request during a tool call, in
// the call: the tool goes on with the answer. An error fails the request
// (the server sees an error, not a refusal).
type Elicitor func(ctx context.Context, e Elicitation) (ElicitAnswer, error)

// errNoAnswer answers an elicitation whose run stopped to ask a person and
// was not resumed in time, or whose toolset closed.
var errNoAnswer = errors.New("mcp: no answer to the elicitation: the run that asked it was not resumed")

// elicitation is one server request handed to the call it belongs to.
type elicitation struct {
	params *sdk.ElicitParams
	reply  chan elicitAnswer // buffered: a reply never blocks
}

type elicitAnswer struct {
	res *sdk.ElicitResult
	err error
}

// onElicit hands an elicitation request to the call in flight, which
// answers it. With no call or several in flight that could have asked it,
// it cannot tell whose it is and declines. Once Shutdown begins, it fails.
func (ts *Toolset) onElicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	ctx, done, err := ts.serve(ctx, false)
	if err != nil {
		return nil, err
	}
	defer done()
	ts.mu.Lock()
	var c *call
	n := 0
	for _, cc := range ts.calls {
		if !cc.parked { // a parked call already holds its question
			c = cc
			n++
		}
	}
	if n == 1 {
		c.asking++
		defer func() {
			ts.mu.Lock()
			c.asking--
			ts.mu.Unlock()
		}()
	}
	ts.mu.Unlock()
	if n != 1 {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	e := &elicitation{params: req.Params, reply: make(chan elicitAnswer, 1)}
	select {
	case c.notes <- note{elicit: e}:
	case <-c.returned: // the call is over: nobody waits for the answer
		c.sawReturn()
		return nil, errNoAnswer
	case <-ctx.Done():
		return nil, ts.served(ctx)
	}
	select {
	case a := <-e.reply:
		return a.res, a.err
	case <-c.returned: // the call is over: nobody waits for the answer
		c.sawReturn()
		return nil, errNoAnswer
	case <-ctx.Done():
		return nil, ts.served(ctx)
	}
}

// served is the error of a server request whose context ended: errClosing
// when Shutdown ended it.
func (ts *Toolset) served(ctx context.Context) error {
	if ts.life.Err() != nil {
		return errClosing
	}
	return ctx.Err()
}

// question is the payload of the question for p.
func question(toolName string, p *sdk.ElicitParams) (Elicitation, error) {
	q := Elicitation{Tool: toolName, Message: p.Message, URL: p.URL}
	if p.RequestedSchema != nil {
		b, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return q, fmt.Errorf("mcp: encode the requested schema: %w", err)
		}
		q.Schema = b
	}
	return q, nil
}

// answer answers p with Config.Elicit when set, else by asking the run's
// person ([agent.Ask]); that returns the run's interruption the first
// time, and the answer once the run is resumed with it.
func (ts *Toolset) answer(ctx context.Context, toolName string, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	q, err := question(toolName, p)
	if err != nil {
		return nil, err
	}
	if ts.cfg.Elicit != nil {
		ctx, cancel := context.WithCancel(ctx) // Close ends the wait for an answer
		defer context.AfterFunc(ts.life, cancel)()
		defer cancel()
		a, err := ts.cfg.Elicit(ctx, q)
		if err != nil && ts.life.Err() != nil {
			return nil, errClosing
		}
		if err != nil {
			return nil, fmt.Errorf("mcp tool %s: answering the elicitation: %w", toolName, err)
		}
		return &sdk.ElicitResult{Action: a.Action, Content: a.Content}, nil
	}
	content := json.RawMessage(`{"type":"object"}`)
	if q.Schema != nil {
		content = q.Schema
	}
	schema := json.RawMessage(`{"type":"object","properties":{"action":{"enum":["accept","decline","cancel"]},"content":` + string(content) + `},"required":["action"]}`)
	raw, err := agent.Ask(ctx, ElicitationKind, q, schema)
	if err != nil {
		return nil, err
	}
	var a ElicitAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("mcp: the answer to an elicitation is not {\"action\", \"content\"}: %w", err)
	}
	return &sdk.ElicitResult{Action: a.Action, Content: a.Content}, nil
}
