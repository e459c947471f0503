package playground_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// TestSessionTurnAnsweredFromThePage: a session's turn that waits (a
// chat's turn, started elsewhere on the same stores) is listed by the
// page. Without a session store the page refuses to answer it, saying
// where to, and the turn still waits; with one, the answer resumes it
// through its session and the conversation holds the turn once.
func TestSessionTurnAnsweredFromThePage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(greetYAML), 0o644))
	store := checkpoint.NewMemory()
	sessions := checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{})

	page := func(cfg playground.Config) func(method, p, body string) (int, string) {
		cfg.Path, cfg.Engine = path, engine.New(engine.Config{Checkpoints: store})
		pg, err := playground.New(cfg)
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, pg.Close()) })
		web := httptest.NewServer(pg.Handler())
		t.Cleanup(web.Close)
		return func(method, p, body string) (int, string) {
			return do(t, method, web.URL+p+"?token="+pg.Token(), body)
		}
	}
	without := page(playground.Config{})
	with := page(playground.Config{Sessions: sessions})

	// The chat's turn, in "another process": an engine on the same stores.
	e := engine.New(engine.Config{Checkpoints: store, Sessions: sessions})
	p, err := spec.Load(path, spec.Registry{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	sess, err := e.OpenSession("s1", p.Agent("greet"))
	require.NoError(t, err)
	_, err = sess.Invoke(t.Context(), map[string]any{})
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	runID, qid := ie.Questions[0].Run, ie.Questions[0].ID

	type view struct {
		ID, Status string
		Pending    []struct{ ID string }
		Output     json.RawMessage
	}
	get := func(api func(string, string, string) (int, string)) view {
		code, body := api(http.MethodGet, "/api/runs/"+runID, "")
		require.Equal(t, http.StatusOK, code, body)
		var v view
		require.NoError(t, json.Unmarshal([]byte(body), &v))
		return v
	}
	require.Equal(t, "waiting", get(without).Status)
	code, body := without(http.MethodPost, "/api/runs/"+runID+"/answers", `{"`+qid+`": "Ada"}`)
	require.Equal(t, http.StatusConflict, code)
	require.Contains(t, body, "is a turn of session s1")
	require.Equal(t, "waiting", get(without).Status, "the refused answer left the turn waiting")

	code, body = with(http.MethodPost, "/api/runs/"+runID+"/answers", `{"`+qid+`": "Ada"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	require.Eventually(t, func() bool { return get(with).Status != "running" }, time.Minute, 20*time.Millisecond)
	v := get(with)
	require.Equal(t, "done", v.Status)
	require.JSONEq(t, `{"name":"Ada"}`, string(v.Output))

	mem, err := engine.NewStored(sessions, "s1")
	require.NoError(t, err)
	msgs, err := mem.Messages(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, msgs, 2, "the turn is remembered once")
}
