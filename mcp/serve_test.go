package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
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
			s, err := NewServer(ServerConfig{Agents: []agent.Agent{twoQuestions(t)}})
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
			s, err := NewServer(ServerConfig{Agents: []agent.Agent{twoQuestions(t)}})
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
	s, err := NewServer(ServerConfig{Agents: []agent.Agent{twoQuestions(t)}})
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
	s, err := NewServer(ServerConfig{Agents: []agent.Agent{twoQuestions(t)}, AllowedOrigins: []string{"https://app.example"}})
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
	s, err := NewServer(ServerConfig{Agents: []agent.Agent{twoQuestions(t)}, SessionTimeout: 100 * time.Millisecond})
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
