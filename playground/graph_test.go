package playground_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

func TestProjectDrawsGraphsAndToolsets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`version: loom/v1
entry: flow
agents:
  id: {type: function, code: "input"}
  fs: {type: mcp, command: [server]}
  flow:
    type: graph
    entry: one
    nodes:
      one: {agent: id}
      ask: {human: {prompt: More?}}
    edges:
      - {from: one, to: ask}
      - {from: ask, branch: "state.ask ? 'one' : 'end'", targets: [one, end]}
`), 0o644))
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, exec.Close()) })
	pg, err := playground.New(playground.Config{Path: path, Engine: engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()}), Registry: spec.Registry{Sandbox: exec}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)
	code, body := do(t, http.MethodGet, web.URL+"/api/project?token="+pg.Token(), "")
	require.Equal(t, http.StatusOK, code, body)
	var v struct {
		Agents []struct {
			Name  string
			Type  string
			Graph *struct {
				Nodes []map[string]string
				Edges []map[string]string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	require.Len(t, v.Agents, 3)
	require.Equal(t, "mcp", v.Agents[1].Type, "an mcp entry is listed, though it is not run")
	g := v.Agents[2].Graph
	require.NotNil(t, g)
	require.Equal(t, []map[string]string{{"name": "one", "kind": "agent", "agent": "id"}, {"name": "ask", "kind": "human"}}, g.Nodes)
	require.Equal(t, []map[string]string{
		{"from": "start", "to": "one"},
		{"from": "one", "to": "ask"},
		{"from": "ask", "to": "one", "branch": "state.ask ? 'one' : 'end'"},
		{"from": "ask", "to": "end", "branch": "state.ask ? 'one' : 'end'"},
	}, g.Edges)
}

// greetYAML is a graph whose one node asks a person for a name.
const greetYAML = `version: loom/v1
entry: greet
agents:
  greet:
    type: graph
    entry: name
    finish: [name]
    nodes:
      name: {human: {prompt: Your name?, answer_schema: {type: string}}}
`

func TestGraphAnswerCheckedBeforeItResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(greetYAML), 0o644))
	pg, err := playground.New(playground.Config{Path: path, Engine: engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()})})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)
	api := func(method, p, body string) (int, string) {
		return do(t, method, web.URL+p+"?token="+pg.Token(), body)
	}
	code, body := api(http.MethodPost, "/api/runs", `{"agent":"greet","input":{}}`)
	require.Equal(t, http.StatusCreated, code, body)
	var started struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &started))
	var v struct {
		Status  string
		Pending []struct{ ID, Kind string }
		Output  json.RawMessage
	}
	wait := func(status string) {
		require.Eventually(t, func() bool {
			_, body := api(http.MethodGet, "/api/runs/"+started.ID, "")
			require.NoError(t, json.Unmarshal([]byte(body), &v))
			return v.Status == status
		}, 10*time.Second, 20*time.Millisecond)
	}
	wait("waiting")
	require.Len(t, v.Pending, 1)
	qid := v.Pending[0].ID

	code, body = api(http.MethodPost, "/api/runs/"+started.ID+"/answers", `{"`+qid+`": 42}`)
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Contains(t, body, "invalid answer")
	code, body = api(http.MethodPost, "/api/runs/"+started.ID+"/answers", `{"nope": "Ada"}`)
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Contains(t, body, `the run asks no question "nope"`)

	code, body = api(http.MethodPost, "/api/runs/"+started.ID+"/answers", `{"`+qid+`": "Ada"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	wait("done")
	require.JSONEq(t, `{"name":"Ada"}`, string(v.Output))
}
