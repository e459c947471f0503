//lint:file-ignore SA1019 the tests exercise logging and sampling, which stay in the protocol through their deprecation window.

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/model"
)

// twoQuestions asks for a name, then a city, and greets.
func twoQuestions(t *testing.T) agent.Agent {
	t.Helper()
	a, err := agent.NewFunc("greet", "asks two questions", func(ctx context.Context, _ struct{}) (string, error) {
		name, err := agent.Ask(ctx, "input", map[string]any{"prompt": "What is your name?"}, json.RawMessage(`{"type":"string"}`))
		if err != nil {
			return "", err
		}
		city, err := agent.Ask(ctx, "input", map[string]any{"prompt": "Where do you live?", "state": map[string]any{"name": json.RawMessage(name)}}, nil)
		if err != nil {
			return "", err
		}
		var n, c string
		_ = json.Unmarshal(name, &n)
		_ = json.Unmarshal(city, &c)
		return "Hello " + n + " from " + c, nil
	})
	require.NoError(t, err)
	return a
}

func TestServerElicitsEveryQuestion(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25", mrtrVersion} {
		t.Run(version, func(t *testing.T) {
			s, err := New(Config{Agents: []agent.Agent{twoQuestions(t)}})
			require.NoError(t, err)
			var asked []string
			cs := serveInMemoryAt(t, s, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked = append(asked, r.Params.Message)
				answer := "Ada"
				if strings.Contains(r.Params.Message, "live") {
					answer = "London"
				}
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
			}}, version)
			require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.False(t, res.IsError, "%v", res.Content)
			require.Nil(t, res.InputRequests)
			require.Empty(t, res.RequestState)
			require.Equal(t, "Hello Ada from London", res.Content[0].(*sdk.TextContent).Text)
			require.Equal(t, []string{"What is your name?", "Where do you live?\nname: Ada"}, asked)
		})
	}
}

func TestServerQuestionWithoutElicitation(t *testing.T) {
	for _, version := range []string{"2025-11-25", mrtrVersion} {
		t.Run(version, func(t *testing.T) {
			s, err := New(Config{Agents: []agent.Agent{twoQuestions(t)}})
			require.NoError(t, err)
			cs := serveInMemoryAt(t, s, nil, version)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.True(t, res.IsError)
			text := res.Content[0].(*sdk.TextContent).Text
			require.Contains(t, text, "greet needs an answer that this client cannot give (it does not support elicitation)")
			require.Contains(t, text, "What is your name?")
			require.NotContains(t, text, "{")
			require.NotContains(t, text, "?1", "no question or run ids")
		})
	}
}

func TestServerDeclinedQuestion(t *testing.T) {
	s, err := New(Config{Agents: []agent.Agent{twoQuestions(t)}})
	require.NoError(t, err)
	cs := serveInMemory(t, s, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, `the question "What is your name?" was not answered (the user chose decline)`)
}

// postJSON posts body to url with the headers, returning the status and
// the session id the server gave.
func postJSON(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get(sessionHeader)
}

func initBody(version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, version)
}

func TestServerHTTPChecks(t *testing.T) {
	s, err := New(Config{Agents: []agent.Agent{twoQuestions(t)}, AllowedOrigins: []string{"https://app.example"}})
	require.NoError(t, err)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer func() { require.NoError(t, s.Close()) }()

	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"http://evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"https://app.example.evil.example", http.StatusForbidden},
		{"http://localhost:3000", http.StatusOK},
		{"http://127.0.0.1:5173", http.StatusOK},
		{"http://[::1]:8080", http.StatusOK},
		{"https://app.example", http.StatusOK},
		{"", http.StatusOK},
	} {
		var h map[string]string
		if tc.origin != "" {
			h = map[string]string{"Origin": tc.origin}
		}
		status, _ := postJSON(t, hs.URL, initBody("2025-11-25"), h)
		require.Equal(t, tc.want, status, "Origin %q", tc.origin)
	}

	status, _ := postJSON(t, hs.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	require.Equal(t, http.StatusBadRequest, status, "a request without a session id")
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, err := http.NewRequest(method, hs.URL, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s without a session id", method)
	}

	for _, tc := range []struct {
		version string
		want    int
	}{
		{"2025-03-26", http.StatusOK},
		{"2025-06-18", http.StatusBadRequest},
		{"2025-11-25", http.StatusBadRequest},
	} {
		status, id := postJSON(t, hs.URL, initBody(tc.version), nil)
		require.Equal(t, http.StatusOK, status)
		require.NotEmpty(t, id)
		status, _ = postJSON(t, hs.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{sessionHeader: id})
		require.Equal(t, http.StatusAccepted, status)
		// No protocol version header: the session's version decides.
		status, _ = postJSON(t, hs.URL, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, map[string]string{sessionHeader: id})
		require.Equal(t, tc.want, status, "a batch on a %s session", tc.version)
	}
	status, _ = postJSON(t, hs.URL, `[`+initBody("2025-03-26")+`]`, nil)
	require.Equal(t, http.StatusBadRequest, status, "initialize in a batch")
}

func TestServerHTTPFreesIdleSessions(t *testing.T) {
	s, err := New(Config{Agents: []agent.Agent{twoQuestions(t)}, SessionTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	sessions := func() int {
		n := 0
		for range s.srv.Sessions() {
			n++
		}
		return n
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// Warm up the code paths (first-use allocations) before measuring.
	_, _ = postJSON(t, hs.URL, initBody("2025-11-25"), nil)
	require.Eventually(t, func() bool { return sessions() == 0 }, 30*time.Second, 20*time.Millisecond)
	before := heap()
	const clients = 400
	for range clients {
		status, id := postJSON(t, hs.URL, initBody("2025-11-25"), nil)
		require.Equal(t, http.StatusOK, status)
		require.NotEmpty(t, id)
	}
	require.Positive(t, sessions())
	grown := heap()
	// Clients that leave without DELETE: the idle timeout ends their sessions.
	require.Eventually(t, func() bool { return sessions() == 0 }, 30*time.Second, 20*time.Millisecond)
	after := heap()
	t.Logf("heap: %d before, %d with %d idle sessions, %d after they timed out", before, grown, clients, after)
	require.Less(t, after, before+(grown-before)/2, "the memory of abandoned sessions is freed")
}

func TestServerResultContent(t *testing.T) {
	type out struct {
		Sum int `json:"sum"`
	}
	sum, err := agent.NewFunc("sum", "adds", func(context.Context, struct{ A, B int }) (out, error) { return out{5}, nil })
	require.NoError(t, err)
	media, err := agent.NewFunc("media", "returns media", func(ctx context.Context, _ struct{}) (string, error) {
		agentrt.SetResultParts(agent.CurrentRun(ctx), model.Text{Text: "look:"}, model.Image{Data: []byte{1, 2}, MIMEType: "image/png"}, model.Audio{Data: []byte{3}, MIMEType: "audio/wav"}, model.Image{URL: "https://example.com/a.png"})
		AddContent(ctx, &sdk.ResourceLink{URI: "file:///doc.md", Name: "doc"})
		return "ignored when parts are given", nil
	})
	require.NoError(t, err)
	s, err := New(Config{Agents: []agent.Agent{sum, media}})
	require.NoError(t, err)
	cs := serveInMemory(t, s, nil)
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "sum", Arguments: map[string]any{"A": 2, "B": 3}})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"sum": float64(5)}, res.StructuredContent)
	require.Equal(t, `{"sum":5}`, res.Content[0].(*sdk.TextContent).Text)

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "media", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 5)
	require.Equal(t, "look:", res.Content[0].(*sdk.TextContent).Text)
	require.Equal(t, []byte{1, 2}, res.Content[1].(*sdk.ImageContent).Data)
	require.Equal(t, "audio/wav", res.Content[2].(*sdk.AudioContent).MIMEType)
	require.Equal(t, "https://example.com/a.png", res.Content[3].(*sdk.ResourceLink).URI)
	require.Equal(t, "file:///doc.md", res.Content[4].(*sdk.ResourceLink).URI)
	require.False(t, AddContent(ctx, &sdk.TextContent{}), "outside a served call")
	require.Nil(t, CallRequest(ctx))
}

func TestServerLogsAtClientLevel(t *testing.T) {
	logged, err := agent.NewFunc("logs", "logs", func(ctx context.Context, _ struct{}) (string, error) {
		log := slog.New(LogHandler(nil)).With("tool", "logs")
		log.DebugContext(ctx, "debug line")
		log.InfoContext(ctx, "info line")
		log.WarnContext(ctx, "warn line")
		return "done", nil
	})
	require.NoError(t, err)
	s, err := New(Config{Agents: []agent.Agent{logged}})
	require.NoError(t, err)
	got := make(chan *sdk.LoggingMessageParams, 8)
	cs := serveInMemoryAt(t, s, &sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) { got <- r.Params }}, "2025-11-25")
	ctx := context.Background()
	require.NoError(t, cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}))
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "logs", Arguments: map[string]any{}})
	require.NoError(t, err)
	var lines []string
	for range 2 {
		select {
		case p := <-got:
			data, ok := p.Data.(map[string]any)
			require.True(t, ok, "%T", p.Data)
			require.Equal(t, "logs", data["tool"])
			lines = append(lines, string(p.Level)+" "+data["msg"].(string))
		case <-time.After(10 * time.Second):
			t.Fatal("no log notification")
		}
	}
	require.Equal(t, []string{"info info line", "warning warn line"}, lines)
}

func TestClientModelSamples(t *testing.T) {
	asker, err := agent.NewFunc("ask_model", "asks the client's model", func(ctx context.Context, in struct {
		Q string `json:"q"`
	}) (string, error) {
		resp, err := model.Generate(ctx, ClientModel(), model.Request{Messages: []model.Message{model.SystemMessage("Be brief."), model.UserMessage(in.Q)}})
		if err != nil {
			return "", err
		}
		return resp.Message.Text(), nil
	})
	require.NoError(t, err)
	s, err := New(Config{Agents: []agent.Agent{asker}})
	require.NoError(t, err)
	var seen *sdk.CreateMessageParams
	cs := serveInMemoryAt(t, s, &sdk.ClientOptions{CreateMessageHandler: func(_ context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		seen = r.Params
		return &sdk.CreateMessageResult{Model: "host-model", Role: "assistant", Content: &sdk.TextContent{Text: "42"}}, nil
	}}, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_model", Arguments: map[string]any{"q": "6*7?"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content[0].(*sdk.TextContent).Text)
	require.Equal(t, "42", res.Content[0].(*sdk.TextContent).Text)
	require.Equal(t, "Be brief.", seen.SystemPrompt)
	require.Equal(t, "6*7?", seen.Messages[0].Content.(*sdk.TextContent).Text)

	// A client without sampling: the run fails with a clear message.
	s2, err := New(Config{Agents: []agent.Agent{asker}})
	require.NoError(t, err)
	res, err = serveInMemory(t, s2, nil).CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_model", Arguments: map[string]any{"q": "?"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "the MCP client does not support sampling")
	_, err = model.Generate(context.Background(), ClientModel(), model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.ErrorIs(t, err, ErrNoClientModel)

	s3, err := New(Config{Agents: []agent.Agent{asker}})
	require.NoError(t, err)
	res, err = serveInMemoryAt(t, s3, &sdk.ClientOptions{CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		return &sdk.CreateMessageResult{Content: &sdk.TextContent{Text: "x"}}, nil
	}}, mrtrVersion).CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_model", Arguments: map[string]any{"q": "?"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "the client model works with clients of protocol 2025-06-18 and 2025-11-25")
}

func TestServerResourcesPromptsCompletions(t *testing.T) {
	s, err := New(Config{})
	require.NoError(t, err)
	read := func(_ context.Context, uri string) ([]*sdk.ResourceContents, error) {
		return []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "doc " + uri}}, nil
	}
	require.NoError(t, s.AddResource(&sdk.Resource{URI: "doc://a", Name: "a"}, read))
	require.NoError(t, s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "doc://{name}", Name: "docs"}, read, func(_ context.Context, arg, prefix string, _ map[string]string) ([]string, error) {
		return []string{"beta", "alpha", "apple"}, nil
	}))
	require.NoError(t, s.AddPrompt(&sdk.Prompt{Name: "greet", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}}, func(_ context.Context, r *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello " + r.Params.Arguments["who"]}}}}, nil
	}, nil))
	require.ErrorIs(t, s.AddResource(&sdk.Resource{URI: "doc://b"}, read), mcp.ErrInvalidConfig)
	require.ErrorIs(t, s.AddPrompt(&sdk.Prompt{Name: "x"}, nil, nil), mcp.ErrInvalidConfig)

	updated := make(chan string, 1)
	cs := serveInMemoryAt(t, s, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI }}, "2025-11-25")
	ctx := context.Background()
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "doc://zeta"})
	require.NoError(t, err)
	require.Equal(t, "doc doc://zeta", rr.Contents[0].Text)
	require.NoError(t, cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "doc://a"}))
	require.Error(t, cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "doc://nosuch"}))
	require.NoError(t, s.ResourceUpdated(ctx, "doc://a"))
	select {
	case uri := <-updated:
		require.Equal(t, "doc://a", uri)
	case <-time.After(10 * time.Second):
		t.Fatal("no update notification")
	}
	c, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: "doc://{name}"}, Argument: sdk.CompleteParamsArgument{Name: "name", Value: "a"}})
	require.NoError(t, err)
	require.Equal(t, []string{"alpha", "apple", "beta"}, c.Completion.Values)
	_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet"})
	require.ErrorContains(t, err, `argument "who" is required`)
	p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ada"}})
	require.NoError(t, err)
	require.Equal(t, "Hello Ada", p.Messages[0].Content.(*sdk.TextContent).Text)
}

func TestServerForgetsFinishedRuns(t *testing.T) {
	s, err := New(Config{Agents: []agent.Agent{twoQuestions(t)}})
	require.NoError(t, err)
	cs := serveInMemoryAt(t, s, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "x"}}, nil
	}}, "2025-11-25")
	for range 3 {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{}})
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	runs, err := s.mem.Runs(context.Background(), checkpoint.RunFilter{})
	require.NoError(t, err)
	require.Empty(t, runs, "finished runs are not kept")
}
