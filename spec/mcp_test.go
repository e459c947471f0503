package spec_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/mcp"
	mcpserver "github.com/loomwork/loom/mcp/server"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// mcpServer serves the search tool over streamable HTTP and records the
// Authorization header of every request.
func mcpServer(t *testing.T) (url string, auth func() []string) {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Config{Agents: []agent.Agent{search(t)}})
	require.NoError(t, err)
	var (
		mu   sync.Mutex
		seen []string
	)
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestMCPEntryConnectsAtRunTime(t *testing.T) {
	url, auth := mcpServer(t)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "docs_search", `{"query":"leave"}`)),
		modeltest.Text("No hits."),
	)
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
model: scripted
entry: helper
agents:
  docs:
    type: mcp
    url: ` + url + `
    headers: {Authorization: "Bearer ${env:DOCS_TOKEN}"}
    prefix: docs
    filter: [search]
    timeout: 10s
  helper:
    type: ai
    tools: [docs]
`})
	env := map[string]string{"DOCS_TOKEN": "t-123"}
	p, err := spec.Load(path, spec.Registry{
		Models: func(string) (model.Model, error) { return m, nil },
		Getenv: func(k string) string { return env[k] },
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	require.Empty(t, auth(), "loading connects to nothing")
	require.Contains(t, p.Toolsets, "docs")
	require.Nil(t, p.Agent("docs"), "an mcp entry is a set of tools, not an agent")

	res, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "How long is leave?")
	require.NoError(t, err)
	require.Equal(t, "No hits.", res.Text())
	tools := m.Request(0).Tools
	require.Len(t, tools, 1)
	require.Equal(t, "docs_search", tools[0].Name)
	result := m.Request(1).Messages[len(m.Request(1).Messages)-1].Parts[0].(model.ToolResult).Content
	require.Contains(t, string(result), "none for leave")
	require.NotEmpty(t, auth())
	for _, h := range auth() {
		require.Equal(t, "Bearer t-123", h, "the header's value comes from the environment")
	}
}

// loadDocsProject loads a project whose helper uses the mcp entry docs at
// url, with the lines entry adds to it, m as its model and env as the
// environment; it closes when the test ends.
func loadDocsProject(t *testing.T, url, entry string, m model.Model, env map[string]string) *spec.Project {
	t.Helper()
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
model: scripted
entry: helper
agents:
  docs:
    type: mcp
    url: ` + url + entry + `
  helper:
    type: ai
    tools: [docs]
`})
	p, err := spec.Load(path, spec.Registry{
		Models: func(string) (model.Model, error) { return m, nil },
		Getenv: func(k string) string { return env[k] },
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

func TestMCPEntryMissingVariable(t *testing.T) {
	// Secrets come from the environment only; a missing one is named
	// before anything is sent.
	cases := []struct {
		name, entry, want string
	}{
		{"header", `
    headers_env: {Authorization: DOCS_TOKEN}`, "set DOCS_TOKEN in the environment or in .env.local"},
		{"enterprise secrets", `
    auth: enterprise
    client_id: docs-client
    client_secret_env: DOCS_SECRET
    idp:
      issuer: https://idp.example.com
      client_id: loom
      client_secret_env: IDP_SECRET`, "set DOCS_SECRET, IDP_SECRET in the environment or in .env.local"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url, auth := mcpServer(t)
			p := loadDocsProject(t, url, c.entry, modeltest.New(t), nil)
			_, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "hi")
			require.ErrorIs(t, err, spec.ErrMissingEnv)
			require.ErrorContains(t, err, c.want)
			require.Empty(t, auth(), "nothing is sent without the secrets")
		})
	}
}

func TestMCPEntryOffersToolsToCodeExecution(t *testing.T) {
	url, _ := mcpServer(t)
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
model: scripted
entry: coder
agents:
  docs: {type: mcp, url: "` + url + `"}
  coder:
    type: code_execution
    tools: [docs]
`})
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "search", `{"query":"x"}`)),
		modeltest.Text("done"),
	)
	exec := inProcess(t)
	p, err := spec.Load(path, spec.Registry{Sandbox: exec, Models: func(string) (model.Model, error) { return m, nil }})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	res, err := engine.New(engine.Config{}).Invoke(context.Background(), p.Entry, "find x")
	require.NoError(t, err)
	require.Equal(t, "done", res.Text())
	var names []string
	for _, tool := range m.Request(0).Tools {
		names = append(names, tool.Name)
	}
	require.Contains(t, names, "search")
	require.Contains(t, names, "evaluateJs")
}

func TestSandboxToolsOfferedToTheCode(t *testing.T) {
	url, _ := mcpServer(t)
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
model: scripted
entry: coder
agents:
  docs: {type: mcp, url: "` + url + `", prefix: docs}
  add:
    type: function
    description: Adds a and b.
    code: "({sum: input.a + input.b})"
    input_schema: {type: object, properties: {a: {type: number}, b: {type: number}}, required: [a, b]}
  coder:
    type: code_execution
    sandbox_tools: [add, docs]
    sandbox_calls: {max_calls: 4}
`})
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"const s = await tools.add({a: 2, b: 3}); const d = await tools.docs_search({query: 'x'}); s.sum + ' ' + d.hits"}`)),
		modeltest.Text("done"),
	)
	p, err := spec.Load(path, spec.Registry{Sandbox: inProcess(t), Models: func(string) (model.Model, error) { return m, nil }})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "add 2 and 3, then search")
	require.NoError(t, err)
	require.Equal(t, "done", res.Text())
	var told strings.Builder
	for _, msg := range m.Request(0).Messages {
		told.WriteString(msg.Text())
	}
	require.Contains(t, told.String(), "add(", "the coder is told the functions' declarations")
	require.Contains(t, told.String(), "docs_search(")
	result := m.Request(1).Messages[len(m.Request(1).Messages)-1].Parts[0].(model.ToolResult).Content
	require.Contains(t, string(result), `"result":"5 none for x"`)
	var names []string
	for _, tool := range m.Request(0).Tools {
		names = append(names, tool.Name)
	}
	require.Equal(t, []string{"evaluateJs"}, names, "sandbox tools reach the code, not the model")
}

func TestMCPEntryOAuth(t *testing.T) {
	// auth: oauth answers the server's 401 with an OAuth login, starting
	// from the protected-resource metadata the challenge names.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var (
		mu   sync.Mutex
		seen []string
	)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/mcp" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(hs.Close)
	p := loadDocsProject(t, hs.URL+"/mcp", `
    auth: oauth`, modeltest.New(t), nil)
	_, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "hi")
	require.ErrorIs(t, err, mcp.ErrAuthorization)
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, seen, "/.well-known/oauth-protected-resource/mcp")
}

func TestMCPEntryClientCredentials(t *testing.T) {
	// auth: client_credentials gets the server's token as client_id with
	// the secret client_secret_env names, from the environment.
	srv, err := mcpserver.New(mcpserver.Config{Agents: []agent.Agent{search(t)}})
	require.NoError(t, err)
	h := srv.Handler()
	var (
		mu     sync.Mutex
		grants []string
	)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/mcp":
			if r.Header.Get("Authorization") != "Bearer granted" {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		case "/.well-known/oauth-protected-resource/mcp":
			_, _ = w.Write([]byte(`{"resource":"` + base + `/mcp","authorization_servers":["` + base + `"]}`))
		case "/.well-known/oauth-authorization-server":
			_, _ = w.Write([]byte(`{"issuer":"` + base + `","token_endpoint":"` + base + `/token","code_challenge_methods_supported":["S256"],"response_types_supported":["code"]}`))
		case "/token":
			id, secret, _ := r.BasicAuth()
			require.NoError(t, r.ParseForm())
			mu.Lock()
			grants = append(grants, r.PostForm.Get("grant_type")+" "+id+":"+secret)
			mu.Unlock()
			_, _ = w.Write([]byte(`{"access_token":"granted","token_type":"Bearer","expires_in":3600}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "search", `{"query":"leave"}`)),
		modeltest.Text("No hits."),
	)
	p := loadDocsProject(t, hs.URL+"/mcp", `
    auth: client_credentials
    client_id: docs-bot
    client_secret_env: DOCS_SECRET`, m, map[string]string{"DOCS_SECRET": "s3cret"})
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "How long is leave?")
	require.NoError(t, err)
	require.Equal(t, "No hits.", res.Text())
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"client_credentials docs-bot:s3cret"}, grants)
}
