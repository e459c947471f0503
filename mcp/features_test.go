package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
)

// lastToolResult is the result of the tool call in the model's request.
func lastToolResult(t *testing.T, req model.Request, name string) model.ToolResult {
	t.Helper()
	for i := len(req.Messages) - 1; i >= 0; i-- {
		for _, p := range req.Messages[i].Parts {
			if tr, ok := p.(model.ToolResult); ok && tr.Name == name {
				return tr
			}
		}
	}
	t.Fatalf("no result of %s in the request", name)
	return model.ToolResult{}
}

func TestEverythingRichContentInAgentMessages(t *testing.T) {
	// An image and an embedded resource from the server's tools reach the
	// model in the agent's messages.
	ts := connect(t, stdioConfig(t, ""))
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "get-tiny-image", `{}`)),
		modeltest.ToolCalls(modeltest.Call("c2", "get-resource-reference", `{"resourceType":"Text","resourceId":3}`)),
		modeltest.ToolCalls(modeltest.Call("c3", "get-resource-reference", `{"resourceType":"Blob","resourceId":2}`)),
		modeltest.Text("seen"),
	)
	a, err := agent.NewAI(agent.AIConfig{Name: "viewer", Model: m, Toolsets: []agent.Toolset{ts}})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(context.Background(), a, "look")
	require.NoError(t, err)
	require.Equal(t, "seen", res.Text())

	img := lastToolResult(t, m.Request(1), "get-tiny-image")
	var found bool
	for _, p := range img.Parts {
		if i, ok := p.(model.Image); ok {
			found = true
			require.Equal(t, "image/png", i.MIMEType)
			require.NotEmpty(t, i.Data)
		}
	}
	require.True(t, found, "the image reaches the model: %#v", img)

	text := lastToolResult(t, m.Request(2), "get-resource-reference")
	require.Contains(t, string(text.Content), "resource demo://resource/dynamic/text/3")
	blob := lastToolResult(t, m.Request(3), "get-resource-reference")
	require.Contains(t, string(blob.Content), "resource demo://resource/dynamic/blob/2")
}

func TestEverythingResourcesAndPrompts(t *testing.T) {
	transports(t, func(t *testing.T, cfg Config) {
		cfg.Resources = true
		cfg.Prefix = "ev"
		ts := connect(t, cfg)
		ctx := context.Background()

		list, err := ts.Resources(ctx)
		require.NoError(t, err)
		require.NotEmpty(t, list)
		var doc Resource
		for _, r := range list {
			if strings.HasPrefix(r.URI, "demo://resource/static/document/") && strings.HasSuffix(r.URI, ".md") {
				doc = r
			}
		}
		require.NotEmpty(t, doc.URI, "resources: %v", list)
		parts, err := ts.ReadResource(ctx, doc.URI)
		require.NoError(t, err)
		require.Len(t, parts, 1)
		require.Contains(t, parts[0].(model.Text).Text, "resource "+doc.URI)

		// The model lists and reads resources through two tools.
		m := modeltest.New(t,
			modeltest.ToolCalls(modeltest.Call("c1", "ev_list_resources", `{}`)),
			modeltest.ToolCalls(modeltest.Call("c2", "ev_read_resource", `{"uri":"`+doc.URI+`"}`)),
			modeltest.Text("read"),
		)
		a, err := agent.NewAI(agent.AIConfig{Name: "reader", Model: m, Toolsets: []agent.Toolset{ts}})
		require.NoError(t, err)
		_, err = engine.New(engine.Config{}).Invoke(ctx, a, "read the docs")
		require.NoError(t, err)
		require.Contains(t, string(lastToolResult(t, m.Request(1), "ev_list_resources").Content), doc.URI)
		read := lastToolResult(t, m.Request(2), "ev_read_resource")
		require.False(t, read.IsError, string(read.Content))
		require.Contains(t, string(read.Content), doc.URI)

		// A prompt becomes an agent's instructions.
		prompts, err := ts.Prompts(ctx)
		require.NoError(t, err)
		var names []string
		for _, p := range prompts {
			names = append(names, p.Name)
		}
		require.Contains(t, names, "simple-prompt")
		instr, err := ts.Instructions(ctx, "simple-prompt", nil)
		require.NoError(t, err)
		require.Equal(t, "This is a simple prompt without arguments.", instr)
		m2 := modeltest.New(t, modeltest.Text("ok"))
		a2, err := agent.NewAI(agent.AIConfig{Name: "prompted", Model: m2, Instructions: instr})
		require.NoError(t, err)
		_, err = engine.New(engine.Config{}).Invoke(ctx, a2, "hi")
		require.NoError(t, err)
		require.Equal(t, model.RoleSystem, m2.Request(0).Messages[0].Role)
		require.Equal(t, instr, m2.Request(0).Messages[0].Text())

		msgs, err := ts.Prompt(ctx, "args-prompt", map[string]string{"city": "Paris"})
		require.NoError(t, err)
		require.NotEmpty(t, msgs)
		require.Contains(t, msgs[0].Text(), "Paris")
	})
}

func TestInstructionsTakenAsWritten(t *testing.T) {
	// A prompt's text with template actions reaches the model unchanged.
	srv := sdk.NewServer(&sdk.Implementation{Name: "prompts", Version: "1"}, nil)
	srv.AddPrompt(&sdk.Prompt{Name: "braces"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: "Answer in {{.Lang}}."}},
			{Role: "assistant", Content: &sdk.TextContent{Text: "Understood."}},
		}}, nil
	})
	hs, _ := sdkHTTPServer(t, srv)
	ts := connect(t, Config{URL: hs.URL})
	instr, err := ts.Instructions(context.Background(), "braces", nil)
	require.NoError(t, err)
	m := modeltest.New(t, modeltest.Text("ok"))
	a, err := agent.NewAI(agent.AIConfig{Name: "prompted", Model: m, Instructions: instr})
	require.NoError(t, err)
	_, err = engine.New(engine.Config{}).Invoke(context.Background(), a, "hi")
	require.NoError(t, err)
	require.Equal(t, "Answer in {{.Lang}}.\n\nUnderstood.", m.Request(0).Messages[0].Text())

	_, err = ts.Instructions(context.Background(), "missing", nil)
	require.ErrorContains(t, err, "get prompt missing")
}
