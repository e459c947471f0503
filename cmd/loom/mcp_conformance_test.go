package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	conformance "github.com/loomwork/loom/internal/mcpconformance"
	"github.com/loomwork/loom/internal/testkit"
)

// TestConformanceMCPServe runs every server scenario of the conformance
// suite against loom mcp serve --http of testdata/conformance, a project
// that declares the suite's test tools (functions, an AI agent on the
// client's model, graphs that ask), resources, knowledge and prompts in
// YAML: all must pass.
func TestConformanceMCPServe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join("testdata", "conformance", "loom.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	var stderr testkit.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- runMCP(ctx, []string{"serve", file, "--http", "127.0.0.1:0", "--db", filepath.Join(dir, "cp.db")}, io.Discard, &stderr, nil)
	}()
	defer func() {
		cancel()
		require.Equal(t, 0, <-code, stderr.String())
	}()
	var url string
	require.Eventually(t, func() bool {
		url = regexp.MustCompile(`http://\S+/mcp`).FindString(stderr.String())
		return url != ""
	}, 30*time.Second, 10*time.Millisecond, "no address in %q", stderr.String())
	results := conformance.RunServer(t, url)
	conformance.Require(t, results, nil)
}

// TestMCPServeFileAsksEveryQuestion serves a graph with two human nodes:
// on both protocol versions, a client answering elicitations gets both
// questions in one call, worded for a person, and the graph's result.
func TestMCPServeFileAsksEveryQuestion(t *testing.T) {
	file := writeFile(t, "loom.yaml", `version: loom/v1
entry: signup
agents:
  signup:
    type: graph
    description: Asks a name, then a city.
    entry: name
    finish: [city]
    nodes:
      name: {human: {prompt: What is your name?, answer_schema: {type: string}}}
      city: {human: {prompt: Where do you live?, show: [name]}}
    edges:
      - {from: name, to: city}
`)
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			var asked []string
			cs := serveHTTPWith(t, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked = append(asked, r.Params.Message)
				answer := "Ada"
				if len(asked) == 2 {
					answer = "London"
				}
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
			}}, version, file, "--db", filepath.Join(t.TempDir(), "cp.db"))
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "signup", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res.Content)
			require.Nil(t, res.InputRequests)
			require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "London")
			require.Equal(t, []string{"What is your name?", "Where do you live?\nname: Ada"}, asked)
		})
	}
}

// TestMCPServeFileResourcesAndPrompts reads a file the project names as a
// resource, and gets and completes an agent's instructions as a prompt.
func TestMCPServeFileResourcesAndPrompts(t *testing.T) {
	file := writeFile(t, "loom.yaml", `version: loom/v1
model: client
entry: writer
agents:
  writer:
    type: ai
    description: Writes in a tone.
    instructions_file: writer.md
    input_schema:
      type: object
      properties:
        tone: {type: string, enum: [formal, friendly, funny], description: The tone}
        topic: {type: string}
      required: [tone]
`)
	dir := filepath.Dir(file)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "writer.md"), []byte("Write about {{.topic}} in a {{.tone}} tone."), 0o644))
	cs := serveHTTPWith(t, nil, "2025-11-25", file, "--db", filepath.Join(t.TempDir(), "cp.db"))
	ctx := t.Context()
	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Resources, 1)
	require.Equal(t, "writer.md", list.Resources[0].Name)
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: list.Resources[0].URI})
	require.NoError(t, err)
	require.Equal(t, "Write about {{.topic}} in a {{.tone}} tone.", rr.Contents[0].Text)

	p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "writer", Arguments: map[string]string{"tone": "funny", "topic": "cats"}})
	require.NoError(t, err)
	require.Equal(t, "Write about cats in a funny tone.", p.Messages[0].Content.(*sdk.TextContent).Text)
	_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "writer"})
	require.ErrorContains(t, err, `argument "tone" is required`)
	c, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "writer"}, Argument: sdk.CompleteParamsArgument{Name: "tone", Value: "f"}})
	require.NoError(t, err)
	require.Equal(t, []string{"formal", "friendly", "funny"}, c.Completion.Values)

	// model: client: without sampling, the call fails with a clear error.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "writer", Arguments: map[string]any{"tone": "formal"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "the MCP client does not support sampling")
}
