package playground_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// TestSaveKeepsAWaitingRunsSandbox: a Save while a run waits for approval
// retires the old version, but its sandbox stays open for that run, whose
// approved snippet then runs in it.
func TestSaveKeepsAWaitingRunsSandbox(t *testing.T) {
	const src = "version: loom/v1\nmodel: scripted\nentry: coder\nagents:\n  coder:\n    type: code_execution\n    approval: ask\n    sandbox: {kind: isolated}\n"
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "evaluateJs", `{"code":"6*7"}`)), modeltest.Text("It is 42."))
	pg, err := playground.New(playground.Config{
		Path: path, Engine: engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()}),
		Registry: spec.Registry{Models: func(string) (model.Model, error) { return m, nil }},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)
	api := func(method, p, body string) (int, string) { return do(t, method, web.URL+p+"?token="+pg.Token(), body) }

	code, body := api(http.MethodPost, "/api/runs", `{"agent":"coder","input":{"message":"6*7?"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	var started struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &started))
	var v struct {
		Status  string
		Pending []struct{ ID string }
		Events  []struct {
			Kind  string
			Data  json.RawMessage
			Error string
		}
		Error string
	}
	wait := func(status string) {
		require.Eventually(t, func() bool {
			_, body := api(http.MethodGet, "/api/runs/"+started.ID, "")
			require.NoError(t, json.Unmarshal([]byte(body), &v))
			return v.Status == status || v.Status == "failed"
		}, 10*time.Second, 20*time.Millisecond)
		require.Equal(t, status, v.Status, v.Error)
	}
	wait("waiting")

	code, body = api(http.MethodPut, "/api/yaml", yamlBody(t, src))
	require.Equal(t, http.StatusOK, code, body)

	code, body = api(http.MethodPost, "/api/runs/"+started.ID+"/answers", `{"`+v.Pending[0].ID+`": {"approved": true}}`)
	require.Equal(t, http.StatusAccepted, code, body)
	wait("done")
	ran := false
	for _, ev := range v.Events {
		if ev.Kind == "tool_result" {
			require.True(t, strings.Contains(string(ev.Data), "42"), "the snippet ran in the retired version's open sandbox: %s", ev.Data)
			ran = true
		}
	}
	require.True(t, ran, "the approved snippet ran")
}
