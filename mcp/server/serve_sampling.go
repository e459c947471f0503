//lint:file-ignore SA1019 sampling stays in the protocol through its deprecation window, and clients of 2025-06-18 and 2025-11-25 use it.

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/model"
)

// ErrNoClientModel reports that [ClientModel] was used where no client can
// sample: outside a served call, or for a client without the sampling
// capability.
var ErrNoClientModel = errors.New("mcp: no client model")

// ClientModel returns a model backed by the client of the served call it
// is used in: each request becomes a sampling/createMessage request to
// that client, which answers with its own model. An agent served with it
// needs no model key of its own. Tools are offered only to clients that
// declared sampling with tools. Outside a served call, for a client
// without sampling, or for a client of the draft protocol 2026-07-28
// (where a server sends no requests during a call), a request fails with
// [ErrNoClientModel].
func ClientModel() model.Model { return clientModel{} }

type clientModel struct{}

func (clientModel) Provider() string { return "client" }
func (clientModel) Name() string     { return "client" }

func (clientModel) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		res, err := sample(ctx, req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		calls := 0
		for _, c := range res.Content {
			switch c := c.(type) {
			case *sdk.TextContent:
				if !yield(model.Chunk{TextDelta: c.Text}, nil) {
					return
				}
			case *sdk.ToolUseContent:
				args, err := json.Marshal(c.Input)
				if err != nil {
					yield(model.Chunk{}, fmt.Errorf("mcp client model: tool call %s: %w", c.Name, err))
					return
				}
				if !yield(model.Chunk{ToolCall: &model.ToolCallDelta{Index: calls, ID: c.ID, Name: c.Name, ArgumentsDelta: string(args)}}, nil) {
					return
				}
				calls++
			}
		}
		finish := model.FinishStop
		switch res.StopReason {
		case "maxTokens":
			finish = model.FinishLength
		case "toolUse":
			finish = model.FinishToolCalls
		}
		if calls > 0 {
			finish = model.FinishToolCalls
		}
		yield(model.Chunk{FinishReason: finish}, nil)
	}
}

// sample sends req to the client of ctx's served call.
func sample(ctx context.Context, req model.Request) (*sdk.CreateMessageWithToolsResult, error) {
	c := callFrom(ctx)
	if c == nil || c.req.Session == nil {
		return nil, fmt.Errorf("%w: model client is used outside a served MCP tool call: it can only answer for an agent that a loom MCP server runs", ErrNoClientModel)
	}
	ss := c.req.Session
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Sampling == nil {
		return nil, fmt.Errorf("%w: the MCP client does not support sampling, so it cannot lend its model: use a client with sampling, or give the agent a model of its own", ErrNoClientModel)
	}
	if multiRoundTrip(ss) {
		return nil, fmt.Errorf("%w: the MCP client speaks protocol %s, on which a server cannot ask the client's model during a call; the client model works with clients of protocol 2025-06-18 and 2025-11-25", ErrNoClientModel, ip.ProtocolVersion)
	}
	p := &sdk.CreateMessageWithToolsParams{MaxTokens: 1024}
	if req.Options.MaxOutputTokens != nil {
		p.MaxTokens = int64(*req.Options.MaxOutputTokens)
	}
	if req.Options.Temperature != nil {
		p.Temperature = *req.Options.Temperature
	}
	p.StopSequences = req.Options.Stop
	if len(req.Tools) > 0 && ip.Capabilities.Sampling.Tools != nil {
		for _, t := range req.Tools {
			var schema any = map[string]any{"type": "object"}
			if len(t.Schema) > 0 {
				if err := json.Unmarshal(t.Schema, &schema); err != nil {
					return nil, fmt.Errorf("mcp client model: tool %s: its schema is not JSON: %w", t.Name, err)
				}
			}
			p.Tools = append(p.Tools, &sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
		}
		switch req.ToolChoice.Mode {
		case model.ToolNone:
			p.ToolChoice = &sdk.ToolChoice{Mode: "none"}
		case model.ToolRequired, model.ToolNamed:
			p.ToolChoice = &sdk.ToolChoice{Mode: "required"}
		}
	}
	for _, m := range req.Messages {
		if m.Role == model.RoleSystem {
			if p.SystemPrompt != "" {
				p.SystemPrompt += "\n\n"
			}
			p.SystemPrompt += m.Text()
			continue
		}
		role := sdk.Role("user")
		if m.Role == model.RoleAssistant {
			role = "assistant"
		}
		var content []sdk.Content
		for _, part := range m.Parts {
			switch part := part.(type) {
			case model.Text:
				content = append(content, &sdk.TextContent{Text: part.Text})
			case model.Image:
				if len(part.Data) > 0 {
					content = append(content, &sdk.ImageContent{Data: part.Data, MIMEType: part.MIMEType})
				} else {
					content = append(content, &sdk.TextContent{Text: "[image: " + part.URL + "]"})
				}
			case model.Audio:
				content = append(content, &sdk.AudioContent{Data: part.Data, MIMEType: part.MIMEType})
			case model.ToolCall:
				var in map[string]any
				_ = json.Unmarshal(part.Arguments, &in)
				content = append(content, &sdk.ToolUseContent{ID: part.ID, Name: part.Name, Input: in})
			case model.ToolResult:
				content = append(content, &sdk.ToolResultContent{ToolUseID: part.CallID, Content: []sdk.Content{&sdk.TextContent{Text: string(part.Content)}}, IsError: part.IsError})
			}
		}
		if len(content) > 0 {
			p.Messages = append(p.Messages, &sdk.SamplingMessageV2{Role: role, Content: content})
		}
	}
	if len(p.Tools) == 0 {
		// Without tools, the request every sampling client takes.
		old := &sdk.CreateMessageParams{MaxTokens: p.MaxTokens, SystemPrompt: p.SystemPrompt, Temperature: p.Temperature, StopSequences: p.StopSequences}
		for _, m := range p.Messages {
			for _, c := range m.Content {
				if _, ok := c.(*sdk.ToolUseContent); ok {
					c = &sdk.TextContent{Text: "(called a tool)"}
				} else if r, ok := c.(*sdk.ToolResultContent); ok {
					c = r.Content[0]
				}
				old.Messages = append(old.Messages, &sdk.SamplingMessage{Role: m.Role, Content: c})
			}
		}
		res, err := ss.CreateMessage(ctx, old)
		if err != nil {
			return nil, fmt.Errorf("mcp client model: sampling: %w", err)
		}
		return &sdk.CreateMessageWithToolsResult{Content: []sdk.Content{res.Content}, Model: res.Model, Role: res.Role, StopReason: res.StopReason}, nil
	}
	res, err := ss.CreateMessageWithTools(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("mcp client model: sampling: %w", err)
	}
	return res, nil
}
