//lint:file-ignore SA1019 sampling stays in the protocol through its deprecation window, and loom answers it only when asked to (Config.Sampling).

package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/model"
)

// onSample answers a server's sampling request with Config.Sampling.
func (ts *Toolset) onSample(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	ctx, done, err := ts.serve(ctx, true)
	if err != nil {
		return nil, err
	}
	defer done()
	p := req.Params
	var mreq model.Request
	if p.SystemPrompt != "" {
		mreq.Messages = append(mreq.Messages, model.Message{Role: model.RoleSystem, Parts: []model.Part{model.Text{Text: p.SystemPrompt}}})
	}
	for _, m := range p.Messages {
		role := model.RoleUser
		if m.Role == "assistant" {
			role = model.RoleAssistant
		}
		var part model.Part
		switch c := m.Content.(type) {
		case *sdk.TextContent:
			part = model.Text{Text: c.Text}
		case *sdk.ImageContent:
			part = model.Image{Data: c.Data, MIMEType: c.MIMEType}
		case *sdk.AudioContent:
			part = model.Audio{Data: c.Data, MIMEType: c.MIMEType}
		default:
			return nil, fmt.Errorf("mcp: sampling: a message's content of type %T is not supported: send text, image or audio", m.Content)
		}
		mreq.Messages = append(mreq.Messages, model.Message{Role: role, Parts: []model.Part{part}})
	}
	if p.MaxTokens > 0 {
		n := int(p.MaxTokens)
		mreq.Options.MaxOutputTokens = &n
	}
	resp, err := model.Generate(ctx, ts.cfg.Sampling, mreq)
	if err != nil {
		if ts.life.Err() != nil {
			return nil, errClosing
		}
		return nil, fmt.Errorf("mcp: sampling with %s: %w", ts.cfg.Sampling.Name(), err)
	}
	stop := "endTurn"
	if resp.FinishReason == model.FinishLength {
		stop = "maxTokens"
	}
	return &sdk.CreateMessageResult{Content: &sdk.TextContent{Text: resp.Message.Text()}, Model: ts.cfg.Sampling.Name(), Role: "assistant", StopReason: stop}, nil
}
