//lint:file-ignore SA1019 logging stays in the protocol through its deprecation window, and clients of 2025-06-18 and 2025-11-25 use it.

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/testkit"
)

// projectClient collects what loom mcp serve sends a client beside
// answers: log lines and progress.
type projectClient struct {
	mu       sync.Mutex
	logs     []string
	progress []float64
}

func (pc *projectClient) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			var rec struct {
				Msg      string `json:"msg"`
				Function string `json:"function"`
			}
			b, _ := json.Marshal(r.Params.Data)
			_ = json.Unmarshal(b, &rec)
			pc.mu.Lock()
			pc.logs = append(pc.logs, string(r.Params.Level)+" "+rec.Function+": "+rec.Msg)
			pc.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			pc.mu.Lock()
			pc.progress = append(pc.progress, r.Params.Progress)
			pc.mu.Unlock()
		},
	}
}

// TestMCPServeProjectFeatures serves testdata/conformance with the real
// loom mcp serve, a child process, over stdio and over --http, and
// checks each feature the project declares in YAML with the Go SDK's
// client: content in order, console lines as log notifications, progress,
// file and template resources, knowledge search, prompts with media and
// resources, and completions.
func TestMCPServeProjectFeatures(t *testing.T) {
	file := filepath.Join("testdata", "conformance", "loom.yaml")
	pixel, err := os.ReadFile(filepath.Join("testdata", "conformance", "pixel.png"))
	require.NoError(t, err)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			pc := &projectClient{}
			db := filepath.Join(t.TempDir(), "cp.db")
			var cs *sdk.ClientSession
			if transport == "http" {
				cs = serveHTTPChild(t, pc.options(), "2025-11-25", file, "--db", db)
			} else {
				cmd := exec.Command(os.Args[0], "mcp", "serve", file, "--db", db)
				cmd.Env = append(os.Environ(), childEnv+"=1")
				var stderr testkit.SyncBuffer
				cmd.Stderr = &stderr
				cs, err = sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, pc.options()).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
				require.NoError(t, err, stderr.String())
				t.Cleanup(func() { require.NoError(t, cs.Close()) })
			}
			ctx := t.Context()

			// Content parts, in the order the function returned them.
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_multiple_content_types"})
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res.Content)
			require.Len(t, res.Content, 3)
			require.Equal(t, "Multiple content types test:", res.Content[0].(*sdk.TextContent).Text)
			require.Equal(t, &sdk.ImageContent{Data: pixel, MIMEType: "image/png"}, res.Content[1])
			require.Equal(t, &sdk.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}, res.Content[2].(*sdk.EmbeddedResource).Resource)
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_audio_content"})
			require.NoError(t, err)
			require.Equal(t, "audio/wav", res.Content[0].(*sdk.AudioContent).MIMEType)

			// Console lines reach a client that set a level, at theirs: on
			// 2025-11-25 with logging/setLevel, on the newest protocol
			// (stdio here) in the request's _meta.
			call := &sdk.CallToolParams{Name: "test_tool_with_logging"}
			if transport == "http" {
				require.NoError(t, cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}))
			} else {
				call.Meta = sdk.Meta{sdk.MetaKeyLogLevel: "info"}
			}
			res, err = cs.CallTool(ctx, call)
			require.NoError(t, err)
			require.JSONEq(t, `{"result":"Logging completed"}`, res.Content[0].(*sdk.TextContent).Text)
			require.Eventually(t, func() bool {
				pc.mu.Lock()
				defer pc.mu.Unlock()
				return len(pc.logs) >= 3
			}, waitFor, tick)
			pc.mu.Lock()
			require.Equal(t, []string{"info test_tool_with_logging: Tool execution started", "info test_tool_with_logging: Tool processing data", "info test_tool_with_logging: Tool execution completed"}, pc.logs)
			pc.mu.Unlock()

			// tools.progress reaches a client that sent a progress token.
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_tool_with_progress", Meta: sdk.Meta{"progressToken": "p1"}})
			require.NoError(t, err)
			require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "Progress completed")
			require.Eventually(t, func() bool {
				pc.mu.Lock()
				defer pc.mu.Unlock()
				return len(pc.progress) >= 3
			}, waitFor, tick)
			pc.mu.Lock()
			require.Equal(t, []float64{0, 50, 100}, pc.progress)
			pc.mu.Unlock()

			// Resources: a project file as bytes, a template filled in.
			rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://static-binary"})
			require.NoError(t, err)
			require.Equal(t, &sdk.ResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: pixel}, rr.Contents[0])
			rr, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://template/x-7/data"})
			require.NoError(t, err)
			require.JSONEq(t, `{"id":"x-7","templateTest":true,"data":"Data for ID: x-7"}`, rr.Contents[0].Text)
			c, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"}, Argument: sdk.CompleteParamsArgument{Name: "id", Value: "4"}})
			require.NoError(t, err)
			require.Equal(t, []string{"456", "123"}, c.Completion.Values)

			// Knowledge: listed, read, and found by name or by content.
			list, err := cs.ListResources(ctx, nil)
			require.NoError(t, err)
			var uris []string
			for _, r := range list.Resources {
				uris = append(uris, r.URI)
			}
			require.Subset(t, uris, []string{"test://static-text", "test://static-binary", "test://watched-resource", "knowledge:///docs/sandbox.md", "knowledge:///docs/start.md"})
			rr, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "knowledge:///docs/start.md"})
			require.NoError(t, err)
			require.Equal(t, "text/markdown", rr.Contents[0].MIMEType)
			require.Contains(t, rr.Contents[0].Text, "Install loom")
			for typed, want := range map[string][]string{"docs/s": {"docs/sandbox.md", "docs/start.md"}, "ISOLATED": {"docs/sandbox.md"}, "nothing like it": {}} {
				c, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: "knowledge:///{+path}"}, Argument: sdk.CompleteParamsArgument{Name: "path", Value: typed}})
				require.NoError(t, err)
				require.Equal(t, want, c.Completion.Values, typed)
			}

			// Prompts: an image from a project file, an embedded resource
			// at the URI given, argument completions.
			p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "test_prompt_with_image"})
			require.NoError(t, err)
			require.Equal(t, &sdk.ImageContent{Data: pixel, MIMEType: "image/png"}, p.Messages[0].Content)
			p, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "test_prompt_with_embedded_resource", Arguments: map[string]string{"resourceUri": "test://mine"}})
			require.NoError(t, err)
			require.Equal(t, &sdk.ResourceContents{URI: "test://mine", MIMEType: "text/plain", Text: "Embedded resource content for testing."}, p.Messages[0].Content.(*sdk.EmbeddedResource).Resource)
			require.Equal(t, "Please process the embedded resource above.", p.Messages[1].Content.(*sdk.TextContent).Text)
			_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "test_prompt_with_embedded_resource"})
			require.ErrorContains(t, err, `argument "resourceUri" is required`)
			c, err = cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, Argument: sdk.CompleteParamsArgument{Name: "arg1", Value: "par"}})
			require.NoError(t, err)
			require.Equal(t, []string{"paris", "park", "party", "test"}, c.Completion.Values)
		})
	}
}

// serveHTTPChild starts loom mcp serve --http on a free loopback port as
// a child process with args, and returns a client connected to it; when
// the test ends the client leaves and SIGTERM stops the server, which
// must exit with 143.
func serveHTTPChild(t *testing.T, opts *sdk.ClientOptions, version string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"mcp", "serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr testkit.SyncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var url string
	require.Eventually(t, func() bool {
		url = regexp.MustCompile(`http://\S+/mcp`).FindString(stderr.String())
		return url != ""
	}, waitFor, tick, "no address in %q", stderr.String())
	tr := &http.Transport{}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err, stderr.String())
	t.Cleanup(func() {
		require.NoError(t, cs.Close())
		tr.CloseIdleConnections()
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		err := <-exited
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, stderr.String())
		require.Equal(t, 143, ee.ExitCode(), stderr.String())
	})
	return cs
}

// waitFor bounds a wait for notifications a client hears beside an
// answer, as a hang guard only; tick is how often it looks.
const (
	waitFor = 30 * time.Second
	tick    = 10 * time.Millisecond
)

// TestValidateListsWhatMCPServeOffers: loom validate shows which files
// and prompts loom mcp serve would offer MCP clients.
func TestValidateListsWhatMCPServeOffers(t *testing.T) {
	var out, errs testkit.SyncBuffer
	file := filepath.Join("testdata", "conformance", "loom.yaml")
	require.Equal(t, 0, runValidate([]string{file}, &out, &errs), errs.String())
	require.Contains(t, out.String(), `under loom mcp serve, MCP clients may read:
  resource test://static-text (file static.txt)
  resource test://static-binary (file pixel.png)
  resource test://watched-resource (file watched.txt)
  resource test://template/{id}/data (text)
  knowledge: 2 documents (docs/sandbox.md, docs/start.md)
  files its entries name: audio.js, image.js, logging.js, mixed.js, progress.js
  prompt test_prompt_with_arguments
`)
	file = writeFile(t, "loom.yaml", "version: loom/v1\nmodel: client\nagents:\n  w: {type: ai, instructions: Write.}\n")
	out = testkit.SyncBuffer{}
	require.Equal(t, 0, runValidate([]string{file}, &out, &errs), errs.String())
	require.Contains(t, out.String(), "  prompt w (the agent's instructions)\n")
}
